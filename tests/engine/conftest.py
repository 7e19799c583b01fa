"""Hypothesis settings for the engine's property tests.

Two profiles, registered here and applied per test (not loaded globally, so other test packages
keep their own settings): "engine" (default, sized so tests/engine runs in well under a minute on
2 cores) and "engine-thorough" (for a long local soak). Choose with SCOUT_ENGINE_PROFILE.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "engine",
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "engine-thorough",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)

ENGINE_SETTINGS = settings.get_profile(os.environ.get("SCOUT_ENGINE_PROFILE", "engine"))
"""Decorate property tests with `@ENGINE_SETTINGS`."""
