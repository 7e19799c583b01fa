"""The live game feed a spectator watches (public events only, after the tournament's delay):
filled in by the live-feed work of #14."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
