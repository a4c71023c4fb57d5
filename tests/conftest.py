"""Hypothesis profiles: `ci` (derandomized, no deadline; chosen when CI is set), `dev`, and `thorough`.

Select one with HYPOTHESIS_PROFILE=<name>; `thorough` runs ten times the examples of `ci`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator

import families  # noqa: F401  (defines the families of tests/families, run beside the suite's own)
import pytest
from hypothesis import HealthCheck, settings

from pe_verify import terminal

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=100,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=10)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)

#: The command-line tests read its Unicode output in this process; under a C locale the command line would
#: write ASCII (`terminal.c_locale`), so they run as under C.UTF-8 whatever the machine's locale.
if terminal.c_locale():
    os.environ["LC_ALL"] = "C.UTF-8"

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
if _PROFILE not in ("ci", "dev", "thorough"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE must be one of ci, dev, thorough; got {_PROFILE!r}")
settings.load_profile(_PROFILE)

#: Test files that read the catalog's assessments, which are computed once per process (`catalog.assessment`):
#: under `-n 2 --dist loadgroup` (how CI runs the deep tests) they share one worker, so no assessment is
#: computed twice.
#: The `test_proofs_*.py` files join them: they read the same derivations' verifications
#: (`evidence.verification`, once per process), which took 7–10 s of SymPy when each worker ran its own.
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
        "test_reproduce_base_bound.py",
        "test_reproduce_decay.py",
        "test_reproduce_interpolation.py",
        "test_reproduce_yarn_precision.py",
    }
)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in CATALOG_FILES or item.path.name.startswith("test_proofs_"):
            item.add_marker(pytest.mark.xdist_group("catalog"))


def _claim_module_caches() -> list:
    """The functools caches of the catalog modules' own helpers (batteries, tables)."""
    from pe_verify.claims import catalog
    from pe_verify.claims.model import Claim

    caches = []
    for name in catalog.MODULES:
        module = importlib.import_module(f"pe_verify.claims.{name}")
        for value in vars(module).values():
            function = value.assess if isinstance(value, Claim) else value
            if callable(getattr(function, "cache_clear", None)) and function.__module__ == module.__name__:
                caches.append(function)
    return caches


@pytest.fixture(autouse=True)
def _no_cached_twin(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that monkeypatches runs the catalog's assessments and the catalog modules' cached helpers
    afresh, and leaves behind only what was cached before it: otherwise a twin computed first would be what
    every later assessment reads (and a twin run after would not reach the helper at all)."""
    if "monkeypatch" not in request.fixturenames:
        yield
        return
    from pe_verify.claims import catalog

    caches, saved = _claim_module_caches(), dict(catalog.ASSESSMENTS)
    catalog.ASSESSMENTS.clear()
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()
    catalog.ASSESSMENTS.clear()
    catalog.ASSESSMENTS.update(saved)
