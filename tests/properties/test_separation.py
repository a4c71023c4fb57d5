"""Separation by offset: the unit step is the nearest offset at d = 512, not at d = 6; broken inputs fail."""

from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from threadpoolctl import threadpool_info, threadpool_limits

from pe_verify.properties.analyses.near_collision import offset_squared_distance_mp
from pe_verify.properties.analyses.separation import (
    SEARCH_BLAS_THREADS,
    certified_separation,
    first_distance_dip,
    nearest_offset,
    offset_distance,
    offset_distances,
    separation_seconds,
    unit_step_against_bound,
)
from pe_verify.properties.encodings.frequencies import frequencies
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

PREC = 170


class Repeating(Sinusoidal):
    """Every pair turns at the fastest frequency ω_0 = 1: the pairs repeat one another."""

    def frequencies_mp(self, dps: int) -> list[mpmath.mpf]:
        omegas = super().frequencies_mp(dps)
        return [omegas[0]] * len(omegas)


class Slow(Sinusoidal):
    """Frequencies 1/1000 and below: no pair turns back within a few hundred positions."""

    def frequency_balls(self) -> list[flint.arb]:
        return [omega / 1000 for omega in super().frequency_balls()]


def test_the_unit_step_is_the_only_nearest_offset_at_d_512() -> None:
    found = nearest_offset(Sinusoidal(512), 200_000)
    assert found.unit_is_nearest and found.closer == 0 and found.first_closer is None
    assert found.nearest == 2 and found.nearest_is_unique
    assert 0 < found.error < 1e-10


def test_at_d_6_farther_offsets_come_closer_than_the_unit_step() -> None:
    found = nearest_offset(Sinusoidal(6), 200_000)
    assert not found.unit_is_nearest
    assert (found.closer, found.first_closer, found.nearest) == (3208, 6, 32082)
    assert found.nearest_is_unique


def test_the_decisions_agree_with_fifty_digits() -> None:
    encoding = Sinusoidal(6)
    omegas = encoding.frequencies_mp(60)
    with mpmath.workdps(50):
        unit = offset_squared_distance_mp(1, omegas)
        closer = [k for k in range(2, 400) if offset_squared_distance_mp(k, omegas) < unit]
    found = nearest_offset(encoding, 399)
    assert found.first_closer == closer[0] and found.closer == len(closer)


def test_repeated_frequencies_bring_an_offset_back_closer() -> None:
    found = nearest_offset(Repeating(512), 1000)
    assert not found.unit_is_nearest and found.first_closer == 6


def test_an_exact_tie_with_the_unit_step_is_not_decided() -> None:
    with pytest.raises(ValueError, match="cannot decide whether k = 2"):
        nearest_offset(Sinusoidal(2, omegas=(2 * sp.pi / 3,)), 10)


@pytest.mark.parametrize("bad", [Sinusoidal(3), Sinusoidal(6, omegas=(1, 1, 1))])
def test_odd_dimensions_and_bad_ranges_are_refused(bad: Sinusoidal) -> None:
    with pytest.raises(ValueError):
        nearest_offset(bad, 1 if bad.d == 6 else 100)


def test_ball_distances_contain_the_fifty_digit_values() -> None:
    encoding = Sinusoidal(512)
    omegas = encoding.frequencies_mp(60)
    for k in (0, 1, 2, 44, 12345):
        ball = offset_distance(encoding, k, PREC)
        with mpmath.workdps(50):
            exact = mpmath.sqrt(offset_squared_distance_mp(k, omegas))
        with flint.ctx.workprec(PREC):
            assert bool(abs(ball - flint.arb(mpmath.nstr(exact, 45))) < flint.arb(10) ** -40)
    with flint.ctx.workprec(PREC):
        assert len(offset_distances(encoding, 5)) == 6


def test_the_first_dip_is_certified_and_a_slow_encoding_has_none() -> None:
    assert first_distance_dip(Sinusoidal(6), 20, PREC).offset == 3
    dip = first_distance_dip(Sinusoidal(512), 100, PREC)
    assert dip.offset == 43 and bool(dip.after < dip.before)
    assert first_distance_dip(Slow(6), 100, PREC) is None


def test_the_unit_step_obeys_the_lipschitz_bound() -> None:
    for d in (6, 512):
        step, bound = unit_step_against_bound(Sinusoidal(d), PREC)
        assert bool(step < bound)


def _blas_threads_seen(search) -> set[int]:
    """The BLAS thread counts in force while `search` runs (read as each root block is done)."""
    seen: set[int] = set()

    def progress(_offsets: int) -> None:
        seen.update(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")

    search(Sinusoidal(6), 2**16, on_progress=progress)
    return seen


def test_the_search_runs_its_products_on_the_blas_threads_it_chooses() -> None:
    """One BLAS thread whatever the caller allows; the twin, the search without its choice, runs on the two
    threads around it."""
    if max((info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"), default=1) < 2:
        pytest.skip("this BLAS runs on one thread: the twin could not tell the choices apart")
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads_seen(certified_separation) == {SEARCH_BLAS_THREADS}
        assert _blas_threads_seen(certified_separation.__wrapped__) == {2}


def test_the_time_estimate_reads_the_frequencies_it_is_given() -> None:
    """Given the unscaled frequencies, the estimate is the base form's; given a proportional RoPE's, whose
    last pair does not turn, it is another (fewer pairs to turn a whole circle inside an interval)."""
    unscaled = frequencies(6, 10000.0, count=3)
    base_form = separation_seconds(6, 10000.0, 2**24)
    assert separation_seconds(6, 10000.0, 2**24, omegas=unscaled) == pytest.approx(base_form, rel=1e-12)
    proportional = np.r_[unscaled[:2], 0.0]
    assert separation_seconds(6, 10000.0, 2**24, omegas=proportional) != pytest.approx(base_form, rel=1e-3)


def test_a_result_at_given_frequencies_names_no_base() -> None:
    given = certified_separation(Sinusoidal(4, omegas=(sp.Rational(1, 3), sp.Rational(1, 700))), 2**10)
    assert given.base == "given frequencies"
    assert certified_separation(Sinusoidal(4, "10000"), 2**10).base == "10000"
