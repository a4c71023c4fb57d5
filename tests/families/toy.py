"""A toy family in one file: `ones(n)` returns n ones. Its record, its two properties and its
identification are all a family needs to be run by `pe-verify check --family toy-ones`, checked by
`pe_verify.testing.assert_toy_ones` and covered by the registry tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from pe_verify.properties.battery import (
    Family,
    Identification,
    Outcome,
    Settings,
    as_array,
    call,
    define,
    outcome,
    register,
    search,
)

NAME = "toy-ones"


class Ones:
    """The implementation called with a length, its result read as an array."""

    def __init__(self, function: Callable) -> None:
        self.function = function

    def values(self, n: int) -> np.ndarray:
        return as_array(call(self.function, (n,), f"ones({n})"), f"ones({n})")[0]


def _lengths(settings: Settings) -> st.SearchStrategy[int]:
    return st.integers(1, min(settings.max_pos, 64))


@register(NAME, "length", "ones(n) holds n values")
def check_length(target: Ones, settings: Settings) -> Outcome:
    def fails(n: int) -> dict[str, Any] | None:
        shape = target.values(n).shape
        return None if shape == (n,) else {"n": n, "shape": list(shape)}

    return outcome("length", "exact", search(_lengths(settings), fails, settings, (1, 2)), "wrong-shape")


@register(NAME, "finite", "every value is finite")
def check_finite(target: Ones, settings: Settings) -> Outcome:
    def fails(n: int) -> dict[str, Any] | None:
        return None if np.isfinite(target.values(n)).all() else {"n": n}

    return outcome("finite", "exact", search(_lengths(settings), fails, settings, (1, 2)), "not-finite")


def identify(target: Ones, settings: Settings) -> tuple[Identification | None, list]:
    deviation = float(np.abs(target.values(8) - 1).max())
    return Identification("ones", {}, deviation, deviation == 0), []


FAMILY = define(
    Family(
        NAME,
        contract="ones(n) -> [n], every value 1",
        forms={1: "ones"},
        adapt=lambda function, form, backend, settings: Ones(function),
        identify=identify,
        expectable=("ones",),
        module=__name__,
        options=("max_pos",),
    )
)


def ones(n: int) -> np.ndarray:
    return np.ones(n)


def one_too_many(n: int) -> np.ndarray:
    return np.ones(n + 1)


def with_nan(n: int) -> np.ndarray:
    values = np.ones(n)
    values[-1] = np.nan
    return values


SETTINGS = Settings(examples=5, max_pos=64)
REFERENCES = {"numpy ones": ones}
TWINS = {"length": one_too_many, "finite": with_nan}
