"""Hypothesis profiles: `ci` (derandomized, no deadline; chosen when CI is set), `dev`, and `thorough`.

Select one with HYPOTHESIS_PROFILE=<name>; `thorough` runs ten times the examples of `ci`.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=100,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
if _PROFILE not in ("ci", "dev", "thorough"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE must be one of ci, dev, thorough; got {_PROFILE!r}")
settings.load_profile(_PROFILE)
