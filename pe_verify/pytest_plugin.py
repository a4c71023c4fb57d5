"""pytest plugin (loaded through the `pytest11` entry point when pe-verify is installed): a fixture that runs
a family's battery on your function, and an option for the number of Hypothesis examples.

    def test_my_rope(pe_verify_check):
        pe_verify_check("rope", my_rotate, d=[64, 128])

    pytest --pe-verify-examples 200     # a deeper search for every pe_verify_check in the run

`pe_verify_check(family, function, **options)` is `pe_verify.testing.assert_family`: it returns the report,
or fails the test saying first what each failed property compared within what tolerance, then its
counterexample and the root cause, hiding its own frames. An `examples` given to the call wins over the
option. Hypothesis keeps its files in pe-verify's cache folder, not in your project.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

OPTION = "--pe-verify-examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pe-verify")
    group.addoption(
        OPTION,
        type=int,
        default=None,
        metavar="N",
        help="Hypothesis examples per property for every pe_verify_check (default: pe-verify's, 60)",
    )


def pytest_configure(config: pytest.Config) -> None:
    examples = config.getoption(OPTION)
    if examples is not None and examples < 1:
        raise pytest.UsageError(f"{OPTION} must be a whole number of at least 1; got {examples}")


@pytest.fixture
def pe_verify_check(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Run a family's battery on a function in this test: `pe_verify_check("rope", fn, d=[64])`."""
    examples = request.config.getoption(OPTION)

    def run(family: str, function: Callable, **options: Any) -> Any:
        __tracebackhide__ = True
        from pe_verify import testing

        if examples is not None:
            options.setdefault("examples", examples)
        return testing.assert_family(family, function, **options)

    return run
