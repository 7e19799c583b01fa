"""How long the tests wait for what they started: generous bounds, scaled by SCOUT_TEST_TIMEOUT_SCALE.

A bound here only ends a wait that would otherwise hang: each is far above what the awaited thing
takes on an idle machine (a server prints its JSON line in about a second), so that on a busy one
(load 30 on two cores makes every process ten or more times slower) the test still waits on the
readiness signal itself. A slower machine or CI runner sets SCOUT_TEST_TIMEOUT_SCALE=3 (say) rather
than anyone editing a test. Speed itself is measured by benchmarks/, never by a test's time-out.
"""

from __future__ import annotations

import os

SCALE_VARIABLE = "SCOUT_TEST_TIMEOUT_SCALE"


def _scale() -> float:
    text = os.environ.get(SCALE_VARIABLE, "1")
    try:
        scale = float(text)
    except ValueError:
        raise SystemExit(f"{SCALE_VARIABLE} must be a number such as 2, not {text!r}") from None
    if not scale > 0:
        raise SystemExit(f"{SCALE_VARIABLE} must be above 0, not {text!r}")
    return scale


SCALE = _scale()


def patience(seconds: float) -> float:
    """`seconds`, the bound for an idle-to-busy machine, times SCOUT_TEST_TIMEOUT_SCALE."""
    return seconds * SCALE


START_S = patience(120.0)
"""A process (an arena, a bot, a CLI command) to print its readiness line or answer its health check."""
CALL_S = patience(60.0)
"""One RPC or HTTP request to a server that is up."""
STOP_S = patience(60.0)
"""A process to exit once told to (SIGTERM, Ctrl-C, its work done)."""
PLAY_S = patience(300.0)
"""A small game, match or tournament to be played through."""
