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

#: Test files that read the catalog's assessments, which are computed once per process (`catalog.assessment`):
#: under `-n 2 --dist loadgroup` (pyproject.toml) they share one worker, so no assessment is computed twice.
CATALOG_FILES = frozenset(
    {
        "test_cache_cli.py",
        "test_catalog.py",
        "test_catalog_cli.py",
        "test_claims_document_000.py",
        "test_claims_document_001.py",
        "test_claims_document_003.py",
        "test_claims_general.py",
        "test_evidence_battery.py",
        "test_readme.py",
        "test_reports_fresh.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in CATALOG_FILES:
            item.add_marker(pytest.mark.xdist_group("catalog"))
