"""Certified separation in chunks: min over K0 ≤ k < K of ‖PE(p + k) − PE(p)‖ is the least of the minima over
any chunks that cover the range, so the range is split, each chunk certified on its own (in turn, in local
processes or on a Dask cluster), audited, and merged into one certificate.

A chunk is seeded with the least upper bound on S attained by the chunks done before it, so that it prunes
against that value from the start (`separation.certified_separation`'s `seed`), and its last evaluation runs
at the precision of the whole range (`precision_offset`), so that the ball of the minimum is the one a single
run gives. The merge takes the least minimum, the offsets whose balls overlap it, the least bound on every
other offset, and adds the tallies; its audit re-checks what each chunk reports where that is cheap: the
chunks cover the range once, each chunk's tallies add up to its length, its minimum is the ball recomputed at
its argmin, and S recomputed in ball arithmetic at its first and last offsets and at seeded sample offsets
lies at or above the bounds it claims. An audit finding leaves the merged answer uncertified, naming the
chunk. (The samples can catch a chunk that overstates its bounds, not prove that none does: the certificate
of each chunk is the search itself.)
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import itertools
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import require_positive_int
from .separation import (
    MAX_SEPARATION_OFFSET,
    NUMPY_SCREEN,
    InconsistentEnclosures,
    ScreenNumerics,
    Separation,
    _ball_value,
    certified_separation,
    decision_precision,
    float_down,
    float_up,
    minimum_ball,
    search_shape,
    separation_memory,
    separation_seconds,
    squared_distance_ball,
)

#: Offsets of each chunk at which the audit recomputes S in ball arithmetic, beside its first and last.
SAMPLES = 8

#: Seconds to reach a Dask scheduler before the run is refused.
CONNECT_SECONDS = 10

#: BLAS and OpenMP thread counts of the worker processes: one each (measured faster and steadier than BLAS
#: threads on a shared machine: the chunks already use every core).
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


@dataclass(frozen=True)
class Chunk:
    """The offsets from_offset ≤ k < max_offset of one piece of a range."""

    from_offset: int
    max_offset: int

    @property
    def size(self) -> int:
        return self.max_offset - self.from_offset


def split(from_offset: int, max_offset: int, chunks: int) -> tuple[Chunk, ...]:
    """`chunks` contiguous chunks of nearly equal size covering from_offset ≤ k < max_offset (fewer when the
    range holds fewer offsets)."""
    count = min(require_positive_int(chunks, "chunks"), max_offset - from_offset)
    if count < 1:
        raise ValueError(f"the range {from_offset} ≤ k < {max_offset} holds no offset")
    edges = [from_offset + (max_offset - from_offset) * i // count for i in range(count + 1)]
    return tuple(Chunk(a, b) for a, b in itertools.pairwise(edges))


def attained(part: Separation) -> float:
    """An upper bound on S attained in a chunk (its minimum squared, rounded up); +∞ without a minimum."""
    if part.minimum is None:
        return math.inf
    with flint.ctx.workprec(128):
        return float_up((part.minimum * part.minimum).upper())


#: Digits of the minimum each chunk decides (`certified_separation`'s default).
DIGITS = 50


#: Where the screen may compute: `pe-verify separation --backend`.
BACKENDS = ("numpy", "torch")


def screen_numerics(backend: str) -> ScreenNumerics:
    """The screen's numerics for a backend name (torch on CUDA when present, else its CPU)."""
    if backend == "numpy":
        return NUMPY_SCREEN
    if backend == "torch":
        from .separation_torch import torch_screen

        return torch_screen()
    raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def run_chunk(
    encoding: Sinusoidal, chunk: Chunk, seed: float | None, precision_offset: int, backend: str = "numpy"
) -> ChunkRun:
    """Certify one chunk (seeded, at the whole range's precision, its screen on `backend`) and time it where
    it runs."""
    started = time.perf_counter()
    found = certified_separation(
        encoding,
        chunk.max_offset,
        chunk.from_offset,
        digits=DIGITS,
        seed=seed,
        precision_offset=precision_offset,
        numerics=screen_numerics(backend),
    )
    return ChunkRun(encoding, chunk, found, time.perf_counter() - started, precision_offset)


@dataclass(frozen=True)
class ChunkRun:
    """A chunk's certified answer and the wall seconds it took where it ran.

    A ball cannot be sent between processes as it is (python-flint's arb does not pickle, and rebuilding one
    from its midpoint and radius rounds the radius up), so a run travels without its minimum and the
    receiver recomputes it at the offset it was attained with the same operations (`minimum_ball`): the
    same ball."""

    encoding: Sinusoidal
    chunk: Chunk
    separation: Separation
    seconds: float
    precision_offset: int

    def __reduce__(self) -> tuple:
        bare = dataclasses.replace(self.separation, minimum=None)
        return (_received, (self.encoding, self.chunk, bare, self.seconds, self.precision_offset))


def _received(
    encoding: Sinusoidal, chunk: Chunk, bare: Separation, seconds: float, precision_offset: int
) -> ChunkRun:
    prec = decision_precision(encoding, precision_offset, DIGITS)
    minimum = None if bare.minimum_at is None else minimum_ball(encoding, bare.minimum_at, prec)
    return ChunkRun(encoding, chunk, dataclasses.replace(bare, minimum=minimum), seconds, precision_offset)


def numerics_self_check(d: int, backend: str = "numpy") -> tuple[str, ...]:
    """The run-time checks of what the screen assumes of the numerics where it runs (the backend's
    `ScreenNumerics.failures`: for numpy, its float32 and float64 cos and sin on [−π, π] and the float32
    product), at the plain leaf shape for d; each chunk also checks the shapes it used. Empty when all
    hold."""
    leaf, _ = search_shape(d)
    return screen_numerics(backend).failures({(-(-leaf // 2) + 1, d // 2)})


def _distance_below(encoding: Sinusoidal, offset: int, bound: Fraction, prec: int) -> bool:
    """Whether ‖PE(p + k) − PE(p)‖ at k = `offset` certainly lies below `bound` (ball arithmetic)."""
    squared = squared_distance_ball(encoding, offset, prec)
    upper = _ball_value(squared.upper())
    return upper < bound * bound


def audit_chunk(encoding: Sinusoidal, run: ChunkRun, samples: int = SAMPLES) -> list[str]:
    """What a chunk reports that its own numbers contradict: tallies that do not add up to its length, an
    argmin outside it, a minimum that is not the ball at its argmin, a bound above S at its first or last
    offset or at `samples` offsets drawn with the chunk's start as seed. Empty when nothing does."""
    chunk, part = run.chunk, run.separation
    where = f"chunk {chunk.from_offset} ≤ k < {chunk.max_offset}"
    problems = []
    tallied = part.by_bounds + part.by_screen + part.by_points + part.candidates
    if tallied != chunk.size:
        problems.append(f"{where}: its tallies add up to {tallied} offsets, not {chunk.size}")
    if not all(chunk.from_offset <= k < chunk.max_offset for k in part.argmin_offsets):
        problems.append(f"{where}: its argmin {part.argmin_offsets} lies outside it")
    prec = 64 + max(chunk.max_offset, 2).bit_length() + 64
    if part.minimum is not None and part.argmin_offsets:
        with flint.ctx.workprec(prec):
            again = squared_distance_ball(encoding, part.argmin_offsets[0], prec).sqrt()
            if not again.overlaps(part.minimum):
                problems.append(f"{where}: its minimum is not the distance at k = {part.argmin_offsets[0]}")
    rng = np.random.default_rng(chunk.from_offset)
    drawn = rng.integers(chunk.from_offset, chunk.max_offset, size=samples, dtype=np.int64).tolist()
    probes = sorted({chunk.from_offset, chunk.max_offset - 1, *drawn})
    others = part.next_lower_bound
    for k in probes:
        own = k in part.argmin_offsets
        claimed = part.lower_bound if own or others is None else max(part.lower_bound, others)
        if _distance_below(encoding, k, claimed, prec):
            problems.append(
                f"{where}: the distance at k = {k} lies below the bound {float(claimed):.12g} it claims"
            )
    return problems


@dataclass(frozen=True)
class Chunked:
    """A range certified in chunks: the merged answer (a `Separation` whose `failed_assumptions` include
    every audit finding), each chunk's run, and the audit's findings."""

    separation: Separation
    runs: tuple[ChunkRun, ...]
    audit: tuple[str, ...]

    @property
    def chunk_seconds(self) -> tuple[float, ...]:
        return tuple(run.seconds for run in self.runs)


def merge(encoding: Sinusoidal, runs: Sequence[ChunkRun], from_offset: int, max_offset: int) -> Chunked:
    """One answer from chunks' answers: the least minimum (the chunk minima compared as balls), the offsets
    whose balls overlap it, the least bound on every other offset, the summed tallies and phase seconds,
    every failed assumption; audited first (`audit_chunk`, and that the chunks cover the range once)."""
    runs = sorted(runs, key=lambda run: run.chunk.from_offset)
    problems: list[str] = []
    edges = [from_offset] + [edge for run in runs for edge in (run.chunk.from_offset, run.chunk.max_offset)]
    edges.append(max_offset)
    if any(a != b for a, b in zip(edges[::2], edges[1::2], strict=True)):
        problems.append(f"the chunks do not cover {from_offset} ≤ k < {max_offset} once, end to end")
    for run in runs:
        problems += audit_chunk(encoding, run)
    parts = [run.separation for run in runs]
    found = [part for part in parts if part.minimum is not None]
    if not found:
        raise InconsistentEnclosures("no chunk found a minimum: every chunk lies above a seed")
    least = min(found, key=lambda part: float(part.minimum.mid()))
    with flint.ctx.workprec(128):
        overlaps = [part.minimum.overlaps(least.minimum) for part in found]
        apart = [part for part, o in zip(found, overlaps, strict=True) if not o]
        others = [float_down((part.minimum * part.minimum).lower()) for part in apart]
    overlapping = [part for part, o in zip(found, overlaps, strict=True) if o]
    argmin = tuple(sorted(k for part in overlapping for k in part.argmin_offsets))
    floors = [part.lower_bound for part in parts]
    failed = list(dict.fromkeys(failure for part in parts for failure in part.failed_assumptions))
    seconds = {phase: sum(part.seconds.get(phase, 0.0) for part in parts) for phase in least.seconds}
    merged = Separation(
        encoding.d,
        str(encoding.base),
        from_offset,
        max_offset,
        least.minimum,
        argmin,
        min([part.next_squared for part in parts] + others),
        sum(part.by_bounds for part in parts),
        sum(part.by_screen for part in parts),
        sum(part.by_points for part in parts),
        sum(part.candidates for part in parts),
        seconds,
        pruned=None,
        failed_assumptions=tuple(failed + problems),
        least_lower=min(floors),
        minimum_at=least.minimum_at,
    )
    return Chunked(merged, tuple(runs), tuple(problems))


# ------------------------------------------------------------------------------------------- running


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _schedule(
    chunks: Sequence[Chunk],
    slots: int,
    submit: Callable[[Chunk, float | None], object],
    wait_one: Callable[[set], object],
    on_chunk: Callable[[ChunkRun], None] | None,
) -> list[ChunkRun]:
    """Run the chunks in order, `slots` at a time, each seeded with the least S attained by those done."""
    queue, pending, runs, best = list(chunks), {}, [], math.inf
    while queue or pending:
        while queue and len(pending) < slots:
            chunk = queue.pop(0)
            pending[submit(chunk, None if math.isinf(best) else best)] = chunk
        done = wait_one(set(pending))
        pending.pop(done)
        run = done.result()
        runs.append(run)
        best = min(best, attained(run.separation))
        if on_chunk is not None:
            on_chunk(run)
    return runs


def chunked_separation(
    encoding: Sinusoidal,
    max_offset: int,
    from_offset: int = 1,
    *,
    chunks: int,
    workers: int = 1,
    scheduler: str | None = None,
    backend: str = "numpy",
    on_chunk: Callable[[ChunkRun], None] | None = None,
) -> Chunked:
    """`certified_separation` over from_offset ≤ k < max_offset in `chunks` chunks, merged (`merge`): in this
    process (workers 1), in `workers` local processes of one BLAS thread each, or on the Dask cluster at
    `scheduler` (whose workers first run `numerics_self_check`; a worker failing it gets no chunk).
    Each chunk's screen computes on `backend` (`BACKENDS`) where it runs. `on_chunk(run)` hears of each chunk
    as it is done."""
    if not 1 <= from_offset < max_offset <= MAX_SEPARATION_OFFSET:
        raise ValueError(
            f"offsets must satisfy 1 ≤ from_offset < max_offset ≤ 2^62, got {from_offset}, {max_offset}"
        )
    pieces = split(from_offset, max_offset, chunks)
    workers = require_positive_int(workers, "workers")
    screen_numerics(backend)  # a bad name is refused here, and the backend's import fails here if it must

    def call(chunk: Chunk, seed: float | None) -> tuple:
        return (run_chunk, encoding, chunk, seed, max_offset, backend)

    if scheduler is not None:
        runs = _on_dask(scheduler, encoding.d, backend, pieces, call, on_chunk)
    elif workers == 1:
        runs, best = [], math.inf
        for chunk in pieces:
            run = run_chunk(encoding, chunk, None if math.isinf(best) else best, max_offset, backend)
            runs.append(run)
            best = min(best, attained(run.separation))
            if on_chunk is not None:
                on_chunk(run)
    else:
        context = multiprocessing.get_context("spawn")
        with (
            _environment(ONE_THREAD),
            concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool,
        ):

            def wait_one(pending: set) -> object:
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                return min(done, key=id)

            runs = _schedule(pieces, workers, lambda c, s: pool.submit(*call(c, s)), wait_one, on_chunk)
    return merge(encoding, runs, from_offset, max_offset)


class ClusterError(RuntimeError):
    """The Dask cluster cannot take the chunks: its address is malformed or out of reach, or no worker of it
    passed the numerics self-check."""


def _on_dask(
    scheduler: str,
    d: int,
    backend: str,
    pieces: Sequence[Chunk],
    call: Callable[[Chunk, float | None], tuple],
    on_chunk: Callable[[ChunkRun], None] | None,
) -> list[ChunkRun]:
    """The chunks on the Dask cluster at `scheduler`, on the workers whose numerics pass the self-check."""
    import distributed

    try:
        client = distributed.Client(scheduler, timeout=CONNECT_SECONDS)
    except (ValueError, OSError) as exc:
        raise ClusterError(str(exc)) from exc
    with client:
        checks = client.run(numerics_self_check, d, backend)
        good = sorted(worker for worker, failures in checks.items() if not failures)
        if not good:
            found = "; ".join(
                f"{worker}: {', '.join(failures)}" for worker, failures in sorted(checks.items())
            )
            raise ClusterError(f"no worker passed the numerics self-check ({found})")

        def submit(chunk: Chunk, seed: float | None) -> object:
            function, *arguments = call(chunk, seed)
            return client.submit(function, *arguments, workers=good, pure=False)

        def wait_one(pending: set) -> object:
            done = distributed.wait(list(pending), return_when="FIRST_COMPLETED").done
            return min(done, key=lambda future: future.key)

        return _schedule(pieces, 2 * len(good), submit, wait_one, on_chunk)


def chunked_memory(d: int, max_offset: int, workers: int) -> int:
    """Bytes the chunked search holds at most on this machine: one search's (`separation_memory`) per
    local worker process (a cluster's workers hold theirs on their own machines)."""
    return separation_memory(d, max_offset) * max(1, workers)


def chunked_seconds(d: int, base: float, chunks: Sequence[Chunk], workers: int) -> float:
    """A rough estimate of the whole run's wall seconds over `workers` (`separation_seconds` per chunk, added
    up: a seeded chunk far from k = 1 prunes no less than this says)."""
    each = [separation_seconds(d, base, chunk.max_offset, chunk.from_offset) for chunk in chunks]
    return sum(each) / max(1, workers)
