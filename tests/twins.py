"""Broken twins shared by several test modules (a test module imports none of the others): encodings and
scaling rules that each break one property the suite checks."""

from __future__ import annotations

import math

import sympy as sp

from pe_verify.properties.encodings.scaling import RopeScaling
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


class Unbounded(Sinusoidal):
    """Mutation: tan in place of sin and cos, infinite at odd multiples of π/2."""

    def column(self, pos: object) -> sp.Matrix:
        return sp.Matrix([sp.tan(pos * w) for w in self.exact_frequencies()])


class LearnedFunction(Sinusoidal):
    """Mutation: an unknown function of the position (a learned embedding), real or not, finite or not."""

    def column(self, pos: object) -> sp.Matrix:
        return sp.Matrix([sp.Function("E")(pos) for _ in self.exact_frequencies()])


class FreeParameter(Sinusoidal):
    """Mutation: a phase of unknown value, which would have to be chosen or learned."""

    def column(self, pos: object) -> sp.Matrix:
        return sp.Matrix([sp.sin(pos * w + sp.Symbol("phase")) for w in self.exact_frequencies()])


class SwappedBetas(RopeScaling):
    """Broken: α and β swapped after validation, so the ramp runs from β_fast = 1 to β_slow = 32."""

    def __post_init__(self) -> None:
        super().__post_init__()
        fast, slow = self.beta_fast, self.beta_slow
        object.__setattr__(self, "beta_fast", slow)
        object.__setattr__(self, "beta_slow", fast)


class Log10Factor(RopeScaling):
    """Broken: the attention factor with log10 in place of ln."""

    def attention_factor(self, mscale: float = 1.0) -> float:
        return 0.1 * mscale * math.log10(self.factor) + 1.0
