"""The replay viewer of a finished game (`/games/{id}`): filled in by the replay work of #14."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
