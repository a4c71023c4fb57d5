"""Certified separation in chunks: the merged answer is the single run's (same minimum ball, argmin and
certificate) for several ranges and chunkings, in this process, in worker processes and on a Dask cluster;
a seeded chunk above its seed bounds every offset; the merge's audit catches a chunk that overstates."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pickle

import numpy as np
import pytest

from pe_verify import cli
from pe_verify.properties.analyses import separation_chunks
from pe_verify.properties.analyses.near_collision import offset_squared_distances
from pe_verify.properties.analyses.separation import (
    certified_separation,
    decision_precision,
    minimum_ball,
    separation_memory,
    separation_seconds,
    squared_distance_ball,
    tiling_memory,
)
from pe_verify.properties.analyses.separation_chunks import (
    BACKENDS,
    Chunk,
    attained,
    chunked_separation,
    merge,
    numerics_self_check,
    run_chunk,
    split,
)
from pe_verify.properties.encodings.sinusoidal import FIXED_POINT_DPS, Sinusoidal

#: (d, from_offset, max_offset, chunks): the global range at d = 6 and 64, the far range at d = 512.
RANGES = [(6, 1, 100_000, 3), (6, 1000, 300_000, 7), (64, 1, 200_000, 4), (512, 60612, 400_000, 3)]


def test_a_range_splits_into_contiguous_chunks_of_nearly_equal_size() -> None:
    chunks = split(10, 31, 4)
    assert [(c.from_offset, c.max_offset) for c in chunks] == [(10, 15), (15, 20), (20, 25), (25, 31)]
    assert split(1, 3, 5) == (Chunk(1, 2), Chunk(2, 3))
    with pytest.raises(ValueError, match="no offset"):
        split(5, 5, 2)


@pytest.mark.parametrize(("d", "first", "stop", "chunks"), RANGES)
def test_the_merged_answer_is_the_single_runs(d: int, first: int, stop: int, chunks: int) -> None:
    encoding = Sinusoidal(d, "10000")
    single = certified_separation(encoding, stop, first)
    found = chunked_separation(encoding, stop, first, chunks=chunks)
    assert found.audit == () and single.same_answer(found.separation)
    merged = found.separation
    assert merged.by_bounds + merged.by_screen + merged.by_points + merged.candidates == stop - first
    assert float(merged.lower_bound) <= float(single.minimum.upper()) and len(found.chunk_seconds) == chunks


@pytest.mark.slow
@pytest.mark.parametrize("chunks", [2, 5, 16])
@pytest.mark.parametrize(("d", "first", "stop"), [(6, 1, 2**22), (64, 1, 2**22), (512, 60612, 2**24)])
def test_every_chunking_gives_the_single_runs_answer(d: int, first: int, stop: int, chunks: int) -> None:
    encoding = Sinusoidal(d, "10000")
    found = chunked_separation(encoding, stop, first, chunks=chunks)
    assert found.audit == () and certified_separation(encoding, stop, first).same_answer(found.separation)


def test_a_chunk_seeded_below_all_its_offsets_bounds_every_one_of_them() -> None:
    encoding = Sinusoidal(6, "10000")
    whole = certified_separation(encoding, 100_000, 1)
    seed = attained(dataclasses.replace(whole, minimum=whole.minimum))
    run = run_chunk(encoding, Chunk(1000, 5000), seed, 100_000)
    assert run.separation.minimum is None and run.separation.argmin_offsets == ()
    assert not run.separation.certified and "above the seed" in run.separation.reason
    squared = offset_squared_distances(5000, encoding.frequencies_mp(FIXED_POINT_DPS))[1000:5000]
    assert float(run.separation.lower_bound) ** 2 <= squared.min()
    assert float(run.separation.lower_bound) ** 2 >= seed * (1 - 1e-9)


def test_a_seed_must_be_a_finite_value_of_s() -> None:
    with pytest.raises(ValueError, match="seed"):
        certified_separation(Sinusoidal(6, "10000"), 100, 1, seed=-1.0)
    with pytest.raises(ValueError, match="seed"):
        certified_separation(Sinusoidal(6, "10000"), 100, 1, seed=math.inf)


def test_a_chunk_travels_between_processes_with_the_same_ball() -> None:
    run = run_chunk(Sinusoidal(64, "10000"), Chunk(1, 50_000), None, 200_000)
    again = pickle.loads(pickle.dumps(run))
    assert again.separation.minimum.mid() == run.separation.minimum.mid()
    assert again.separation.minimum.rad() == run.separation.minimum.rad()
    assert again.separation.argmin_offsets == run.separation.argmin_offsets


@pytest.fixture(scope="module")
def runs() -> tuple[Sinusoidal, list]:
    """Three honest chunks of d = 6, 1 ≤ k < 60 000."""
    encoding = Sinusoidal(6, "10000")
    return encoding, [run_chunk(encoding, chunk, None, 60_000) for chunk in split(1, 60_000, 3)]


def _twin(runs: list, index: int, **changes) -> list:
    twin = list(runs)
    twin[index] = dataclasses.replace(
        runs[index], separation=dataclasses.replace(runs[index].separation, **changes)
    )
    return twin


def test_honest_chunks_pass_the_audit_and_their_certificates_check(runs) -> None:
    encoding, parts = runs
    found = merge(encoding, parts, 1, 60_000)
    assert found.audit == () and found.separation.certified


def _forged(runs: list, index: int, **changes) -> list:
    """`runs` with the certificate of run `index` changed."""
    tiling = runs[index].separation.tiling
    return _twin(runs, index, tiling=dataclasses.replace(tiling, **changes))


def _rejected(found, words: str) -> bool:
    return any(words in problem for problem in found.audit) and not found.separation.certified


def test_twin_a_certificate_with_a_dropped_piece_is_rejected(runs) -> None:
    encoding, parts = runs
    tiling = parts[1].separation.tiling
    kept = np.arange(tiling.starts.size) != tiling.starts.size // 2
    twin = _forged(
        parts,
        1,
        **{name: getattr(tiling, name)[kept] for name in ("starts", "lengths", "bounds")},
        one_by_one=tiling.one_by_one[kept],
    )
    start = int(tiling.starts[tiling.starts.size // 2])
    assert _rejected(merge(encoding, twin, 1, 60_000), f"leaves offsets {start} ≤ k <")


def test_twin_pieces_that_overlap_are_rejected(runs) -> None:
    encoding, parts = runs
    tiling = parts[0].separation.tiling
    longer = tiling.lengths.copy()
    longer[3] += 1
    assert _rejected(merge(encoding, _forged(parts, 0, lengths=longer), 1, 60_000), "twice")


@pytest.mark.parametrize("one_by_one", [False, True])
def test_twin_an_overstated_bound_is_rejected(runs, one_by_one: bool) -> None:
    """A piece that claims a bound above the least S over it (float64, within 1e-12 here): an interval
    excluded as a whole, or the leaf bounded one by one that holds the minimum (a leaf's claim is checked as
    far as the answer relies on it)."""
    encoding, parts = runs
    at = merge(encoding, parts, 1, 60_000).separation.minimum_at
    index = next(i for i, run in enumerate(parts) if run.chunk.from_offset <= at < run.chunk.max_offset)
    tiling = parts[index].separation.tiling
    holds = (tiling.starts <= at) & (at < tiling.starts + tiling.lengths)
    piece = int(np.flatnonzero(holds if one_by_one else ~tiling.one_by_one)[-1])
    assert bool(tiling.one_by_one[piece]) == one_by_one
    start, length = int(tiling.starts[piece]), int(tiling.lengths[piece])
    squared = offset_squared_distances(start + length, encoding.frequencies_mp(FIXED_POINT_DPS))
    bounds = tiling.bounds.copy()
    bounds[piece] = float(squared[start:].min()) + 1e-9
    found = merge(encoding, _forged(parts, index, bounds=bounds), 1, 60_000)
    kind = "piece" if one_by_one else f"interval {start} ≤ k"
    assert _rejected(found, f"the {kind}") and _rejected(found, f"claims S ≥ {bounds[piece]!r}")


def test_twin_a_forged_minimum_is_rejected(runs) -> None:
    encoding, parts = runs
    honest = merge(encoding, parts, 1, 60_000).separation
    index = next(i for i, run in enumerate(parts) if honest.minimum_at in run.separation.argmin_offsets)
    chunk = parts[index].chunk
    other = chunk.from_offset + (honest.minimum_at - chunk.from_offset + 1) % chunk.size
    ball = minimum_ball(encoding, other, decision_precision(encoding, 60_000, separation_chunks.DIGITS))
    twin = _twin(parts, index, minimum=ball, minimum_at=other, argmin_offsets=(other,))
    found = merge(encoding, twin, 1, 60_000)
    assert _rejected(found, f"the distance at k = {honest.minimum_at} lies below the merged minimum")
    forged = _twin(parts, index, minimum=honest.minimum * 0.999)
    assert _rejected(merge(encoding, forged, 1, 60_000), "the merged minimum is not the distance")


@pytest.fixture(scope="module")
def far_runs() -> tuple[Sinusoidal, list]:
    """Three honest chunks of d = 512 beyond the longest wavelength, 60612 ≤ k < 250 000: every leaf decided
    by the screen, and checked by the block products."""
    encoding = Sinusoidal(512, "10000")
    return encoding, [run_chunk(encoding, chunk, None, 250_000) for chunk in split(60612, 250_000, 3)]


def test_twin_a_leaf_the_block_products_check_is_rejected_when_it_overstates_or_hides_the_minimum(
    far_runs,
) -> None:
    """Where the block products decide: the leaf that holds the minimum claiming S a little above its least
    value (1e-9, below the 2^-38 slack of a claim), and a chunk whose minimum is moved to another offset of
    the same leaf, which hides the true one. (The products hand the offsets below the bound the answer states
    for the others to the enclosure of one offset, which names the leaf, or to ball arithmetic; how close
    the products' own bounds are is tested in test_separation_certificates.py.)"""
    encoding, parts = far_runs
    honest = merge(encoding, parts, 60612, 250_000)
    assert honest.audit == () and honest.separation.certified
    at = honest.separation.minimum_at
    index = next(i for i, run in enumerate(parts) if run.chunk.from_offset <= at < run.chunk.max_offset)
    tiling = parts[index].separation.tiling
    piece = int(np.flatnonzero((tiling.starts <= at) & (at < tiling.starts + tiling.lengths))[0])
    assert tiling.one_by_one[piece] and tiling.lengths[piece] == 4096
    least = float(squared_distance_ball(encoding, at, 128).mid())
    bounds = tiling.bounds.copy()
    bounds[piece] = least + 1e-9
    found = merge(encoding, _forged(parts, index, bounds=bounds), 60612, 250_000)
    assert _rejected(found, f"claims S ≥ {bounds[piece]!r}")
    other = at + 1 if at + 1 < int(tiling.starts[piece] + tiling.lengths[piece]) else at - 1
    ball = minimum_ball(encoding, other, decision_precision(encoding, 250_000, separation_chunks.DIGITS))
    twin = _twin(parts, index, minimum=ball, minimum_at=other, argmin_offsets=(other,))
    assert _rejected(merge(encoding, twin, 60612, 250_000), f"the distance at k = {at} lies below")


def test_twin_a_float64_cos_that_is_off_is_named_not_trusted(
    far_runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A platform whose cos is off by 1e-9 (far beyond the 2^-48 the check's sector table may err by): the
    check names the value and leaves the merged answer uncertified."""
    encoding, parts = far_runs
    real = np.cos
    monkeypatch.setattr(np, "cos", lambda x, *args, **kwargs: real(x, *args, **kwargs) + 1e-9)
    found = merge(encoding, parts, 60612, 250_000)
    assert _rejected(found, "float64 cos(0·θ_0) = 1.000000001 is not within")


def test_a_claimed_bound_on_other_offsets_is_not_carried_beyond_what_the_certificates_support(runs) -> None:
    encoding, parts = runs
    honest = merge(encoding, parts, 1, 60_000).separation
    claims = [_twin(parts, i, next_squared=12.0)[i] for i in range(len(parts))]
    found = merge(encoding, claims, 1, 60_000)
    assert found.audit == () and found.separation.certified
    assert found.separation.next_squared <= honest.next_squared < 12.0


def test_twin_tallies_that_do_not_add_up_and_a_gap_are_caught(runs) -> None:
    encoding, parts = runs
    short = _twin(parts, 2, by_screen=parts[2].separation.by_screen - 1)
    assert any("tallies add up" in problem for problem in merge(encoding, short, 1, 60_000).audit)
    assert any("do not cover" in problem for problem in merge(encoding, parts[:2], 1, 60_000).audit)
    assert any("do not cover" in problem for problem in merge(encoding, [*parts, parts[1]], 1, 60_000).audit)


def test_this_machines_numerics_pass_the_self_check() -> None:
    assert numerics_self_check(512) == ()


@pytest.mark.slow
@pytest.mark.parametrize(("d", "first", "stop"), [(6, 1, 2**21), (64, 1, 2**21), (512, 60612, 2**23)])
def test_two_worker_processes_give_the_single_runs_answer(d: int, first: int, stop: int) -> None:
    encoding = Sinusoidal(d, "10000")
    found = chunked_separation(encoding, stop, first, chunks=6, workers=2)
    assert found.audit == () and certified_separation(encoding, stop, first).same_answer(found.separation)


@pytest.mark.slow
def test_a_dask_cluster_of_two_workers_gives_the_single_runs_answer() -> None:
    distributed = pytest.importorskip("distributed")
    saved = dict(os.environ)  # a LocalCluster's nannies write their worker settings into this process's
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
            for d, first, stop in [(6, 1, 2**21), (64, 1, 2**21), (512, 60612, 2**23)]:
                encoding = Sinusoidal(d, "10000")
                address = cluster.scheduler_address
                found = chunked_separation(encoding, stop, first, chunks=6, scheduler=address)
                single = certified_separation(encoding, stop, first)
                assert found.audit == () and single.same_answer(found.separation)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_offsets_outside_the_range_are_refused() -> None:
    with pytest.raises(ValueError, match="offsets"):
        chunked_separation(Sinusoidal(6, "10000"), 10, 10, chunks=2)
    assert np.isfinite(attained(certified_separation(Sinusoidal(6, "10000"), 100, 1)))


def test_the_command_certifies_in_chunks_and_says_how_long_each_took(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "separation",
        "--d",
        "6",
        "--max-offset",
        "1e6",
        "--from-offset",
        "3000",
        "--chunks",
        "4",
        "--json",
    ]
    assert cli.main(argv) == 0
    report = json.loads(capsys.readouterr().out)["separation"]
    assert report["argmin_offsets"] == [428708] and report["certified"] is True
    assert report["minimum_distance"].startswith("0.0228243414991472745890")
    assert [(c["from_offset"], c["max_offset"]) for c in report["chunks"]] == [
        (3000, 252250),
        (252250, 501500),
        (501500, 750750),
        (750750, 1000000),
    ]
    assert [c["seeded"] for c in report["chunks"]] == [False, True, True, True]
    assert cli.main([*argv[:-1], "--quiet"]) == 0
    assert (
        "- 4 chunks, each certified apart and merged once their certificates checked"
        in capsys.readouterr().out
    )


def test_a_cluster_without_dask_or_out_of_reach_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(separation_chunks, "CONNECT_SECONDS", 1)
    argv = ["separation", "--d", "6", "--max-offset", "1000", "--scheduler", "tcp://127.0.0.1:1", "--quiet"]
    assert cli.main([*argv]) == 2
    err = capsys.readouterr().err
    assert "needs Dask" in err or "the Dask cluster at tcp://127.0.0.1:1" in err
    assert len(err.splitlines()) == 1
    assert cli.main([*argv[:-3], "--scheduler", "no-port-here", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "needs Dask" in err or "the Dask cluster at no-port-here" in err
    assert len(err.splitlines()) == 1


def test_the_command_takes_exactly_the_backends_the_search_knows(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["separation", "--d", "8", "--max-offset", "100"]
    assert all(cli._parser().parse_args([*argv, "--backend", name]).backend == name for name in BACKENDS)
    assert cli.main([*argv, "--backend", "jax"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_answers_that_differ_in_ball_argmin_or_certificate_are_not_the_same(runs) -> None:
    _, parts = runs
    one = parts[0].separation
    assert one.same_answer(one)
    assert not one.same_answer(dataclasses.replace(one, minimum=parts[1].separation.minimum))
    assert not one.same_answer(dataclasses.replace(one, argmin_offsets=(1, 2)))
    assert not one.same_answer(dataclasses.replace(one, failed_assumptions=("a product that rounds",)))
    assert not one.same_answer(dataclasses.replace(one, minimum=None, argmin_offsets=()))


def test_the_memory_and_time_estimates_count_every_worker_and_chunk(
    capsys: pytest.CaptureFixture[str],
) -> None:
    chunks = split(60612, 2**31, 8)
    certificates = [tiling_memory(512, chunk.size) for chunk in chunks]
    assert separation_chunks.chunked_memory(512, chunks, 4) == 4 * (
        separation_memory(512, 2**31) + max(certificates)
    ) + sum(certificates)
    alone = separation_seconds(512, 1e4, 2**31, 60612)
    assert separation_chunks.chunked_seconds(512, 1e4, chunks, 1) >= alone / 2
    assert separation_chunks.chunked_seconds(512, 1e4, chunks, 4) < separation_chunks.chunked_seconds(
        512, 1e4, chunks, 1
    )
    argv = ["separation", "--d", "4096", "--max-offset", "1e6", "--max-memory", "0.5"]
    assert cli.main([*argv, "--workers", "200"]) == 2
    err = capsys.readouterr().err
    assert "200 worker(s)" in err and "raise --max-memory" in err and len(err.splitlines()) == 1
    assert separation_seconds(512, 1e4, 2**31, 60612, check=True) < 600  # within the default --max-minutes
    chunks = split(60612, 2**37, 64)
    check = separation_seconds(512, 1e4, 2**37, 60612, check=True)
    assert separation_chunks.chunked_seconds(512, 1e4, chunks, 64) > check > 600  # beyond the default
    far = ["separation", "--d", "512", "--from-offset", "60612", "--max-offset", str(2**37)]
    for where in (["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:1"]):
        assert cli.main([*far, *where]) == 2
        err = capsys.readouterr().err
        assert "certificates' check would take about" in err and len(err.splitlines()) == 1
