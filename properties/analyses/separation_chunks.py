"""Certified separation in chunks: min over K0 ≤ k < K of ‖PE(p + k) − PE(p)‖ is the least of the minima over
any chunks that cover the range, so the range is split, each chunk certified on its own (in turn, in local
processes or on a Dask cluster), and merged into one answer once every chunk's certificate checks.

A chunk is seeded with the least upper bound on S attained by the chunks done before it, so that it prunes
against that value from the start (`separation.certified_separation`'s `seed`), and its last evaluation runs
at the precision of the whole range (`precision_offset`), so that the ball of the minimum is the one a single
run gives. The merge takes the least minimum, the offsets whose balls overlap it, the least bound on every
other offset, and adds the tallies. Each chunk returns its certificate (`separation.Tiling`: its offsets cut
into pieces, each with the lower bound on S it claims), and the merge checks them all without trusting the
chunks (`separation_certificates.check_chunks`: the pieces tile the range, every bound is re-derived from
exact turn positions, the offsets near the minimum are evaluated in ball arithmetic), and that the chunks
cover the range once and each chunk's tallies add up to its length. A finding leaves the merged answer
uncertified, naming the chunk and its first failing piece.

Wherever the chunks run, every wait has a bound. A Dask scheduler must answer within CONNECT_SECONDS (the
connection, Dask's handshake and a first exchange), else the address is refused (`ClusterError`); each chunk
must be answered within its deadline (`chunk_deadline`, from its own time estimate); a worker that dies,
stays stopped, falls silent, pauses or is restarted at a new address is noticed, its chunk runs again on a
worker that passed (or now passes) the numerics self-check, and when none can take it the run is refused
(`WorkerLost`). Local worker processes end with the run, on SIGTERM and SIGHUP, and when its process is
killed (`_end_with_parent`). The merged answer is the same whichever worker certified a chunk, and however
often it was tried.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import dataclasses
import errno
import functools
import itertools
import logging
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

import flint

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import require_positive_int
from .separation import (
    CLAIM_SLACK,
    MAX_SEPARATION_OFFSET,
    NUMPY_SCREEN,
    InconsistentEnclosures,
    ScreenNumerics,
    Separation,
    base_text,
    certified_separation,
    decision_precision,
    encoding_seconds,
    float_down,
    float_up,
    minimum_ball,
    search_shape,
    separation_memory,
    separation_seconds,
    tiling_memory,
)
from .separation_certificates import check_chunks

#: Seconds to reach a Dask scheduler (the connection, Dask's handshake and a first answer) before the run is
#: refused.
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
    """Certify one chunk (seeded, at the whole range's precision, its screen on `backend`), with its
    certificate, and time it where it runs."""
    started = time.perf_counter()
    found = certified_separation(
        encoding,
        chunk.max_offset,
        chunk.from_offset,
        digits=DIGITS,
        seed=seed,
        precision_offset=precision_offset,
        numerics=screen_numerics(backend),
        certify=True,
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


def audit_chunk(run: ChunkRun) -> list[str]:
    """What a chunk reports that its own numbers contradict: tallies that do not add up to its length, an
    argmin outside it. Empty when nothing does (its certificate is checked by `merge`)."""
    chunk, part = run.chunk, run.separation
    where = f"chunk {chunk.from_offset} ≤ k < {chunk.max_offset}"
    problems = []
    tallied = part.by_bounds + part.by_screen + part.by_points + part.candidates
    if tallied != chunk.size:
        problems.append(f"{where}: its tallies add up to {tallied} offsets, not {chunk.size}")
    if not all(chunk.from_offset <= k < chunk.max_offset for k in part.argmin_offsets):
        problems.append(f"{where}: its argmin {part.argmin_offsets} lies outside it")
    return problems


@dataclass(frozen=True)
class Chunked:
    """A range certified in chunks: the merged answer (a `Separation` whose `failed_assumptions` include
    every audit finding), each chunk's run, the audit's findings (the certificates' check among them), and
    the CPU seconds the check took in this process."""

    separation: Separation
    runs: tuple[ChunkRun, ...]
    audit: tuple[str, ...]
    check_seconds: float = 0.0

    @property
    def chunk_seconds(self) -> tuple[float, ...]:
        return tuple(run.seconds for run in self.runs)


def merge(encoding: Sinusoidal, runs: Sequence[ChunkRun], from_offset: int, max_offset: int) -> Chunked:
    """One answer from chunks' answers: the least minimum (the chunk minima compared as balls), the offsets
    whose balls overlap it, the least bound on every other offset (the least of the chunks' claims and of the
    bounds their certificates re-derive), the summed tallies and phase seconds, every failed assumption;
    audited (`audit_chunk`, that the chunks cover the range once, `check_chunks` on their certificates)."""
    runs = sorted(runs, key=lambda run: run.chunk.from_offset)
    problems: list[str] = []
    edges = [from_offset] + [edge for run in runs for edge in (run.chunk.from_offset, run.chunk.max_offset)]
    edges.append(max_offset)
    if any(a != b for a, b in zip(edges[::2], edges[1::2], strict=True)):
        problems.append(f"the chunks do not cover {from_offset} ≤ k < {max_offset} once, end to end")
    for run in runs:
        problems += audit_chunk(run)
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
    started = time.process_time()
    prec = decision_precision(encoding, max(run.precision_offset for run in runs), DIGITS)
    tilings = [(run.chunk.from_offset, run.chunk.max_offset, run.separation.tiling) for run in runs]
    claimed = min([part.next_squared for part in parts] + others)
    wanted = claimed * (1 - CLAIM_SLACK[0]) - encoding.d * CLAIM_SLACK[1] if math.isfinite(claimed) else 0.0
    checked = check_chunks(encoding, tilings, least.minimum, least.minimum_at, argmin, prec, wanted)
    problems += checked.problems
    check_seconds = time.process_time() - started
    floors = [part.lower_bound for part in parts]
    failed = list(dict.fromkeys(failure for part in parts for failure in part.failed_assumptions))
    seconds = {phase: sum(part.seconds.get(phase, 0.0) for part in parts) for phase in least.seconds}
    merged = Separation(
        encoding.d,
        base_text(encoding),
        from_offset,
        max_offset,
        least.minimum,
        argmin,
        min(claimed, checked.next_squared),
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
    return Chunked(merged, tuple(runs), tuple(problems), check_seconds)


# ------------------------------------------------------------------------------------------- running

#: Seconds any later exchange with the Dask scheduler may take (its list of workers, a chunk's answer).
EXCHANGE_SECONDS = 30

#: Seconds between looks at the Dask cluster's workers (joined, left, paused, silent).
LOOK_SECONDS = 1.0

#: A chunk's deadline where it runs: CHUNK_MARGIN times its estimated seconds (`separation_seconds`, which
#: came out 1× to 29× the measured time on the 35 runs it was calibrated on) plus CHUNK_FLOOR_SECONDS (a
#: process's start and imports, a slower or busier core than this project's).
CHUNK_MARGIN = 10
CHUNK_FLOOR_SECONDS = 60.0

#: Seconds a worker's numerics self-check may take (a fresh worker imports numpy and python-flint, or torch).
SELF_CHECK_SECONDS = 120.0

#: Seconds a Dask worker may go unheard by its scheduler (it reports every second or so) before the chunk it
#: holds goes to another worker.
SILENT_SECONDS = 60.0

#: Seconds a local worker process may stay stopped (SIGSTOP, a debugger) before it is ended and its chunk
#: runs again in a fresh one.
STOPPED_SECONDS = 10.0

#: Seconds to wait, when chunks are left and no worker that passed the self-check can take one, for a worker
#: that does (a nanny restarting one, a worker coming back from a pause) before the run is refused.
REJOIN_SECONDS = 30.0

#: Times a chunk is tried before the run is refused.
ATTEMPTS = 3

#: Seconds between looks at the workers when nothing happens; a wait that overran its time by more than
#: STALL_SECONDS means this process itself was not running (Ctrl-Z, a debugger), and that time counts against
#: no deadline.
POLL_SECONDS = 0.25
STALL_SECONDS = 2.0


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


def chunk_deadline(encoding: Sinusoidal, chunk: Chunk) -> float:
    """The seconds a worker may take to answer for `chunk` before it is deemed lost: CHUNK_MARGIN times the
    chunk's own estimate (`encoding_seconds`) plus CHUNK_FLOOR_SECONDS."""
    estimate = encoding_seconds(encoding, chunk.max_offset, chunk.from_offset)
    return CHUNK_FLOOR_SECONDS + CHUNK_MARGIN * estimate


def _named(chunk: Chunk) -> str:
    return f"chunk {chunk.from_offset} ≤ k < {chunk.max_offset}"


def _said(exc: BaseException) -> str:
    """An exception in one line: its type and its text."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ClusterError(RuntimeError):
    """The Dask cluster cannot take the chunks: its address is malformed, out of reach or not a Dask
    scheduler's, or no worker of it passed the numerics self-check."""


class WorkerLost(OSError):
    """The chunks could not all be certified: a chunk's worker died, stayed stopped, fell silent or missed
    the chunk's deadline on each of its ATTEMPTS, or no worker that passed the numerics self-check was left to
    take it, or the Dask scheduler was lost. An OSError whose text is the message, so that the command line
    states it in one line (exit 3)."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EIO, message)

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class _Job:
    """A chunk handed to a worker: which try it is, and when (on the run's `_Clock`) its answer is due."""

    chunk: Chunk
    attempt: int
    due: float
    seconds: float


class _Clock:
    """Seconds of the run during which this process ran: a wait that overran its time by more than
    STALL_SECONDS (the whole run stopped, as by Ctrl-Z and `fg`) is left out, so that no deadline passes while
    this process could not look."""

    def __init__(self) -> None:
        self._skipped = 0.0

    def now(self) -> float:
        return time.monotonic() - self._skipped

    def wait(self, wait: Callable[[float], object], seconds: float) -> None:
        started = time.monotonic()
        try:
            wait(seconds)
        finally:
            over = time.monotonic() - started - seconds
            if over > STALL_SECONDS:
                self._skipped += over


def _retry(queue: collections.deque, job: _Job, reason: str, where: str = "") -> None:
    """Queue a lost chunk again, first in line, or refuse the run once it has had ATTEMPTS tries."""
    if job.attempt >= ATTEMPTS:
        raise WorkerLost(
            f"{where}{_named(job.chunk)} could not be certified: {reason} (try {job.attempt} of {ATTEMPTS})"
        )
    queue.appendleft((job.chunk, job.attempt + 1))


# ------------------------------------------------------------------------------------ local processes

#: Linux's prctl option that has the kernel send the calling process a signal when its parent ends.
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int) -> None:
    """Make this worker process end when its parent `parent` ends, even by SIGKILL, which the parent cannot
    catch. On Linux the kernel sends it SIGKILL then (prctl PR_SET_PDEATHSIG), which asks nothing of this
    process: it ends a stopped process, or one deep in C code holding the GIL, as surely as an idle one. A
    parent gone before the request took effect ends it at once. Elsewhere a thread polls the parent's pid each
    second (which needs the GIL now and then, and does not end a stopped process)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:
                    os._exit(1)
                return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="pe-verify parent watch", daemon=True).start()


def _serve_chunks(conn: Connection, parent: int) -> None:
    """A local worker process: certify each chunk sent on `conn` and send back its run (or the exception it
    raised, with its traceback), until told to stop or the pipe closes. It ends with its parent
    (`_end_with_parent`) and leaves Ctrl-C to it (which ends the workers)."""
    _end_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            answer: tuple = ("run", run_chunk(*job))
        except Exception as exc:
            answer = ("raised", exc, traceback.format_exc())
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception:  # an exception that does not pickle
            conn.send(("raised", RuntimeError(_said(answer[1])), answer[2]))


class _WorkerTraceback(Exception):
    """The traceback of an exception a chunk raised in its worker process (shown with --debug)."""


def _stopped(pid: int) -> bool:
    """Whether a process is stopped (SIGSTOP, SIGTSTP, a debugger), from its state in /proc; False where there
    is no /proc, where the chunk's deadline stands in."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"T", b"t")


def _ended_how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-exitcode).name}"
        return f"was killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


class _LocalWorker:
    """One spawned worker process of one BLAS thread, the pipe it takes chunks on, and the chunk it holds."""

    def __init__(self, context: multiprocessing.context.SpawnContext) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(
            target=_serve_chunks, args=(theirs, os.getpid()), name="pe-verify separation worker", daemon=True
        )
        with _environment(ONE_THREAD):
            self.process.start()
        theirs.close()
        self.conn = ours
        self.job: _Job | None = None
        self.stopped_since: float | None = None

    def give(self, job: _Job, message: tuple) -> None:
        self.job, self.stopped_since = job, None
        with contextlib.suppress(OSError):  # a process already gone is noticed by `outcome`
            self.conn.send(message)

    def outcome(self, now: float) -> ChunkRun | str | None:
        """What became of the chunk this worker holds: its run, why it is lost (the process ended, stayed
        stopped STOPPED_SECONDS, or missed the chunk's deadline), or None while it runs. An exception the
        chunk raised is raised here."""
        pid, job = self.process.pid, self.job
        assert job is not None
        if self.conn.poll():
            try:
                answer = self.conn.recv()
            except (EOFError, OSError):
                self.process.join(timeout=1.0)
            else:
                if answer[0] == "raised":
                    raise answer[1] from _WorkerTraceback(answer[2])
                return answer[1]
        if not self.process.is_alive():
            return f"its worker process {pid} {_ended_how(self.process.exitcode)}"
        if not _stopped(pid):
            self.stopped_since = None
        elif self.stopped_since is None:
            self.stopped_since = now
        elif now - self.stopped_since > STOPPED_SECONDS:
            return f"its worker process {pid} stayed stopped (SIGSTOP, a debugger) for {STOPPED_SECONDS:g} s"
        if now > job.due:
            return (
                f"its worker process {pid} gave no answer within the chunk's deadline of {job.seconds:.0f} s"
            )
        return None

    def stop(self) -> None:
        """Ask the process to end (it ends once its chunk, if any, is done)."""
        with contextlib.suppress(OSError):
            self.conn.send(None)

    def end(self, grace: float = 0.0) -> None:
        """Reap the process, killed unless it ends within `grace` seconds (it holds nothing to clean up)."""
        self.process.join(timeout=grace)
        if self.process.is_alive():
            with contextlib.suppress(OSError):
                self.process.kill()
            self.process.join(timeout=5.0)
        self.conn.close()


@contextlib.contextmanager
def _ended_with_run(pool: list[_LocalWorker]) -> Iterator[None]:
    """The local worker processes end with the run: when it returns or raises, and when this process gets
    SIGTERM or SIGHUP. Those are handled in the main thread only (where Python runs signal handlers), and
    only when not ignored: the workers are killed, then the signal's previous handling takes its course (by
    default it ends this process, whose multiprocessing resource tracker then ends too)."""
    previous: dict[int, Callable | int] = {}

    def restore() -> None:
        while previous:
            signum, handling = previous.popitem()
            signal.signal(signum, handling)

    def handler(signum: int, frame: object) -> None:
        handling = previous.get(signum, signal.SIG_DFL)
        for worker in list(pool):
            worker.end()
        restore()
        if callable(handling):
            handling(signum, frame)
        else:
            os.kill(os.getpid(), signum)

    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            handling = None if signum is None else signal.getsignal(signum)
            if signum is not None and handling is not None and handling != signal.SIG_IGN:
                previous[signum] = handling
                signal.signal(signum, handler)
    try:
        yield
    finally:
        try:
            for worker in list(pool):
                worker.end()
        finally:
            restore()


def _on_processes(
    encoding: Sinusoidal,
    pieces: Sequence[Chunk],
    workers: int,
    precision_offset: int,
    backend: str,
    on_chunk: Callable[[ChunkRun], None] | None,
) -> list[ChunkRun]:
    """The chunks in `workers` spawned local processes of one BLAS thread each, one chunk at a time each, in
    order, each seeded with the least S attained by the chunks done. A process that dies, stays stopped for
    STOPPED_SECONDS or misses its chunk's deadline (`chunk_deadline`) is ended and its chunk runs again in a
    fresh process, up to ATTEMPTS tries (then `WorkerLost`). The processes end with the run, on SIGTERM and
    SIGHUP too (`_ended_with_run`), and with this process even when it is killed (`_end_with_parent`; on Linux
    that is tied to the thread that started them, which is this call's)."""
    context = multiprocessing.get_context("spawn")
    clock = _Clock()
    queue: collections.deque[tuple[Chunk, int]] = collections.deque((chunk, 1) for chunk in pieces)
    pool: list[_LocalWorker] = []
    runs: list[ChunkRun] = []
    best = math.inf
    with _ended_with_run(pool):
        while queue or any(worker.job is not None for worker in pool):
            idle = [worker for worker in pool if worker.job is None]
            while queue and (idle or len(pool) < workers):
                if idle:
                    worker = idle.pop()
                else:
                    worker = _LocalWorker(context)
                    pool.append(worker)
                chunk, attempt = queue.popleft()
                seconds = chunk_deadline(encoding, chunk)
                seed = None if math.isinf(best) else best
                worker.give(
                    _Job(chunk, attempt, clock.now() + seconds, seconds),
                    (encoding, chunk, seed, precision_offset, backend),
                )
            busy = [worker for worker in pool if worker.job is not None]
            handles = [handle for worker in busy for handle in (worker.conn, worker.process.sentinel)]
            clock.wait(functools.partial(multiprocessing.connection.wait, handles), POLL_SECONDS)
            now = clock.now()
            for worker in busy:
                job, outcome = worker.job, worker.outcome(now)
                if outcome is None:
                    continue
                assert job is not None
                worker.job = None
                if isinstance(outcome, str):
                    worker.end()
                    pool.remove(worker)
                    _retry(queue, job, outcome)
                    continue
                runs.append(outcome)
                best = min(best, attained(outcome.separation))
                if on_chunk is not None:
                    on_chunk(outcome)
        for worker in pool:
            worker.stop()
        for worker in pool:
            worker.end(grace=5.0)
    return runs


# ---------------------------------------------------------------------------------------- Dask cluster


@contextlib.contextmanager
def _dask_log(show: bool) -> Iterator[None]:
    """Dask's log (its loggers and tornado's and asyncio's, which it writes through) and its warnings go
    nowhere while the chunks run, unless `show` (the command's --debug); the levels and warning filters are
    restored after."""
    if show:
        yield
        return
    families = ("distributed", "tornado", "asyncio", "bokeh")
    loggers = [logging.getLogger(name) for name in families] + [
        logger
        for name, logger in list(logging.root.manager.loggerDict.items())
        if isinstance(logger, logging.Logger) and name.startswith(tuple(f"{family}." for family in families))
    ]
    saved = [(logger, logger.level) for logger in loggers]
    for logger, _ in saved:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"(distributed|dask|tornado)(\.|$)")
            yield
    finally:
        for logger, level in saved:
            logger.setLevel(level)


#: What an address scheme needs that Dask may lack, named when Dask cannot even try to connect.
_SCHEME_NEEDS = {
    "ucx": "ucx:// needs Dask's UCX support (distributed-ucxx)",
    "tls": "tls:// needs Dask's TLS settings (distributed.comm.tls in its configuration)",
    "wss": "wss:// needs Dask's TLS settings (distributed.comm.tls in its configuration)",
}


def _probe(scheduler: str, connection_args: dict) -> None:
    """Reach the Dask scheduler at `scheduler` within CONNECT_SECONDS: the connection, Dask's handshake and
    its answer to an identity request, in an exchange of its own (on a loop of its own, in a thread waited for
    CONNECT_SECONDS + 1 s, so that even a name lookup that hangs is bounded). Raises ClusterError naming what
    went wrong: a malformed address, a scheme Dask cannot use here (ucx:// without UCX, tls:// without TLS
    settings), nothing listening, a listener that never answers, or a server that is not a Dask scheduler (an
    HTTP server, a websocket server of another kind)."""
    from distributed.comm import connect

    outcome: dict[str, object] = {}

    async def exchange() -> object:
        comm = await connect(scheduler, timeout=CONNECT_SECONDS, **connection_args)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def attempt() -> None:
        try:
            outcome["answer"] = asyncio.run(asyncio.wait_for(exchange(), CONNECT_SECONDS))
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc

    thread = threading.Thread(target=attempt, name="pe-verify Dask handshake", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS + 1)
    error = outcome.get("error")
    if thread.is_alive() or isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        raise ClusterError(f"no Dask scheduler answered there within {CONNECT_SECONDS:g} s")
    if isinstance(error, ValueError):
        raise ClusterError(" ".join(str(error).split())) from error
    if isinstance(error, BaseException):
        scheme = scheduler.partition("://")[0].lower() if "://" in scheduler else ""
        unusable = not isinstance(error, OSError) or "ssl_context" in str(error)  # Dask's TLS words
        if scheme in _SCHEME_NEEDS and unusable:
            raise ClusterError(f"{_SCHEME_NEEDS[scheme]} ({_said(error)})") from error
        if isinstance(error, OSError):
            raise ClusterError(f"no Dask scheduler answers there ({_said(error)})") from error
        raise ClusterError(f"Dask cannot connect to it ({_said(error)})") from error
    answer = outcome.get("answer")
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise ClusterError("it answered, but not as a Dask scheduler")


def _connect(scheduler: str) -> object:
    """A client of the Dask scheduler at `scheduler`, reached within CONNECT_SECONDS (`_probe` first, then the
    client, whose start is bounded too); raises ClusterError."""
    import distributed

    class BoundedClient(distributed.Client):
        """A client whose start (connection, handshake, registration) has a deadline."""

        def start(self, **kwargs: object) -> None:
            try:
                super().start(callback_timeout=CONNECT_SECONDS, **kwargs)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.close(timeout=CONNECT_SECONDS)
                raise

    try:
        security = distributed.Security()
        _probe(scheduler, security.get_connection_args("client"))
        return BoundedClient(scheduler, timeout=CONNECT_SECONDS, security=security, set_as_default=False)
    except ClusterError:
        raise
    except (TimeoutError, asyncio.TimeoutError) as exc:
        raise ClusterError(f"no Dask scheduler answered there within {CONNECT_SECONDS:g} s") from exc
    except Exception as exc:
        raise ClusterError(f"the Dask client could not start ({_said(exc)})") from exc


@dataclass(frozen=True)
class _Unchecked:
    """A Dask worker's answer instead of a chunk's run when its numerics fail the self-check (a worker
    restarted at an address whose earlier worker passed it)."""

    failures: tuple[str, ...]


def _chunk_on_worker(
    encoding: Sinusoidal, chunk: Chunk, seed: float | None, precision_offset: int, backend: str
) -> ChunkRun | _Unchecked:
    """A chunk as a Dask task: `run_chunk` where the worker's numerics pass the self-check (cached in the
    worker's process), else `_Unchecked`."""
    failures = numerics_self_check(encoding.d, backend)
    if failures:
        return _Unchecked(failures)
    return run_chunk(encoding, chunk, seed, precision_offset, backend)


@dataclass
class _DaskWorker:
    """What the run knows of one Dask worker: its threads and status as the scheduler last said, when (on the
    run's clock) it was last heard from, its self-check, and why it gets no more chunks."""

    address: str
    nthreads: int
    status: str
    last_seen: float
    heard: float
    check: object | None = None
    check_due: float = 0.0
    passed: bool = False
    refused: str = ""

    def state(self) -> str:
        if self.refused:
            return self.refused
        if self.status == "paused":
            return "paused (Dask's memory limit)"
        return "passed the numerics self-check" if self.passed else f"not checked yet ({self.status})"


class _DaskRun:
    """The chunks on a Dask cluster, each pinned to one worker whose numerics passed the self-check, at most
    as many at once on a worker as it has threads, each seeded with the least S attained by those done.

    Every LOOK_SECONDS the scheduler lists its workers (within EXCHANGE_SECONDS, or the run is refused): a
    worker new to the run (restarted by a nanny at a new address, joined) gets the self-check (within
    SELF_CHECK_SECONDS) and, when it passes, chunks; a worker that left, fell silent for SILENT_SECONDS
    (stopped, cut off) or missed a chunk's deadline (`chunk_deadline`; paused by Dask's memory limit, say)
    gets no more, and its chunks go to others, up to ATTEMPTS tries each. When chunks are left and none can
    be placed for REJOIN_SECONDS, the run is refused: `ClusterError` when no worker ever passed the
    self-check, else `WorkerLost`, as when the scheduler is lost."""

    def __init__(
        self,
        client: object,
        scheduler: str,
        encoding: Sinusoidal,
        backend: str,
        precision_offset: int,
        on_chunk: Callable[[ChunkRun], None] | None,
    ) -> None:
        self.client, self.scheduler, self.encoding = client, scheduler, encoding
        self.backend, self.precision_offset, self.on_chunk = backend, precision_offset, on_chunk
        self.clock, self.wake = _Clock(), threading.Event()
        self.workers: dict[str, _DaskWorker] = {}
        self.running: dict[object, tuple[_Job, str]] = {}
        self.queue: collections.deque[tuple[Chunk, int]] = collections.deque()
        self.runs: list[ChunkRun] = []
        self.best = math.inf
        self.lost, self.lost_by = "", ""
        self.passed_once = False
        self.stuck_since: float | None = None

    def run(self, pieces: Sequence[Chunk]) -> list[ChunkRun]:
        self.queue.extend((chunk, 1) for chunk in pieces)
        next_look = -math.inf
        try:
            while self.queue or self.running:
                self.wake.clear()
                now = self.clock.now()
                self._connected()
                if now >= next_look:
                    self._look(now)
                    next_look = now + LOOK_SECONDS
                self._collect()
                self._place(now)
                self._stuck(now)
                self.clock.wait(self.wake.wait, POLL_SECONDS)
        finally:
            for future in [*self.running, *(w.check for w in self.workers.values() if w.check is not None)]:
                with contextlib.suppress(Exception):
                    future.release()
        return self.runs

    # What the scheduler says.

    def _where(self) -> str:
        return f"the Dask cluster at {self.scheduler}: "

    def _connected(self) -> None:
        if self.client.status != "running":
            raise WorkerLost(f"{self._where()}the connection to its scheduler was lost")

    def _look(self, now: float) -> None:
        try:
            info = self.client.sync(self.client.scheduler.identity, callback_timeout=EXCHANGE_SECONDS)
        except (TimeoutError, asyncio.TimeoutError) as exc:
            self._connected()
            raise WorkerLost(
                f"{self._where()}its scheduler gave no answer within {EXCHANGE_SECONDS:g} s"
            ) from exc
        except Exception as exc:
            self._connected()
            raise WorkerLost(f"{self._where()}its scheduler could not be asked ({_said(exc)})") from exc
        listed = info.get("workers", {}) if isinstance(info, dict) else {}
        for address in [address for address in self.workers if address not in listed]:
            self._give_up(self.workers.pop(address), "left the cluster")
        for address, said in listed.items():
            last_seen = said.get("last_seen", 0.0)
            worker = self.workers.get(address)
            if worker is None:
                worker = self.workers[address] = _DaskWorker(address, 1, "", last_seen, now)
            worker.nthreads = max(1, int(said.get("nthreads") or 1))
            worker.status = str(said.get("status", "running"))
            if last_seen != worker.last_seen:
                worker.last_seen, worker.heard = last_seen, now
        for worker in list(self.workers.values()):
            holds = worker.check is not None or any(
                where == worker.address for _, where in self.running.values()
            )
            if holds and now - worker.heard > SILENT_SECONDS:
                self._give_up(worker, f"was not heard from for {SILENT_SECONDS:g} s (stopped or cut off)")
            elif worker.check is not None and now > worker.check_due:
                self._give_up(
                    worker,
                    f"gave no answer to the numerics self-check within {SELF_CHECK_SECONDS:g} s (its status: "
                    f"{worker.status})",
                )
            elif not (worker.check or worker.passed or worker.refused) and worker.status == "running":
                self._check(worker, now)
        for job, address in list(self.running.values()):
            worker = self.workers.get(address)
            if worker is not None and now > job.due:
                self._give_up(
                    worker,
                    f"gave no answer within the chunk's deadline of {job.seconds:.0f} s (its status: "
                    f"{worker.status})",
                )

    # Worker by worker.

    def _submit(self, function: Callable, *arguments: object, address: str) -> object:
        future = self.client.submit(
            function, *arguments, workers=[address], allow_other_workers=False, pure=False
        )
        future.add_done_callback(lambda _: self.wake.set())
        return future

    def _check(self, worker: _DaskWorker, now: float) -> None:
        worker.check = self._submit(
            numerics_self_check, self.encoding.d, self.backend, address=worker.address
        )
        worker.check_due = now + SELF_CHECK_SECONDS

    def _give_up(self, worker: _DaskWorker, reason: str) -> None:
        """No more chunks for `worker` (`reason` says why); its self-check and chunks are released, the chunks
        queued again."""
        worker.refused = worker.refused or reason
        if worker.check is not None:
            worker.check.release()
            worker.check = None
        for future, (job, address) in list(self.running.items()):
            if address == worker.address:
                del self.running[future]
                future.release()
                self._lose(job, worker.address, reason)

    def _lose(self, job: _Job, address: str, reason: str) -> None:
        self.lost, self.lost_by = f"worker {address} {reason} while certifying {_named(job.chunk)}", address
        _retry(self.queue, job, f"worker {address} {reason}", self._where())

    def _collect(self) -> None:
        """The answers of finished self-checks and chunks."""
        for worker in self.workers.values():
            check = worker.check
            if check is None or not check.done():
                continue
            worker.check = None
            try:
                failures = check.result(timeout=EXCHANGE_SECONDS)
            except (Exception, asyncio.CancelledError) as exc:
                self._connected()
                worker.refused = f"could not run the numerics self-check ({_said(exc)})"
                continue
            finally:
                check.release()
            if failures:
                worker.refused = f"failed the numerics self-check: {', '.join(failures)}"
            else:
                worker.passed = self.passed_once = True
        for future, (job, address) in list(self.running.items()):
            if not future.done():
                continue
            del self.running[future]
            answer = self._answer(future)
            if isinstance(answer, ChunkRun):
                self.runs.append(answer)
                self.best = min(self.best, attained(answer.separation))
                if self.on_chunk is not None:
                    self.on_chunk(answer)
                continue
            if isinstance(answer, _Unchecked):
                answer = f"failed the numerics self-check: {', '.join(answer.failures)}"
                if address in self.workers:
                    self.workers[address].refused = answer
            self._lose(job, address, answer)

    def _answer(self, future: object) -> ChunkRun | _Unchecked | str:
        """A finished chunk's run (or `_Unchecked`), or what became of it as said of its worker; an exception
        the chunk raised is raised here."""
        import distributed

        self._connected()
        status = future.status
        try:
            if status == "finished":
                return future.result(timeout=EXCHANGE_SECONDS)
            if status != "error":
                return f"lost its chunk ({status})"
            raised = future.exception(timeout=EXCHANGE_SECONDS)
        except (Exception, asyncio.CancelledError) as exc:
            self._connected()
            return f"lost its answer ({_said(exc)})"
        finally:
            future.release()
        if isinstance(raised, distributed.KilledWorker):
            return "died"
        raise raised

    def _place(self, now: float) -> None:
        """Queued chunks to the least loaded running workers that passed the self-check."""
        load = collections.Counter(address for _, address in self.running.values())
        while self.queue:
            free = [
                worker
                for worker in self.workers.values()
                if worker.passed
                and not worker.refused
                and worker.status == "running"
                and load[worker.address] < worker.nthreads
            ]
            if not free:
                return
            worker = min(free, key=lambda worker: (load[worker.address], worker.address))
            chunk, attempt = self.queue.popleft()
            seconds = chunk_deadline(self.encoding, chunk)
            seed = None if math.isinf(self.best) else self.best
            arguments = (self.encoding, chunk, seed, self.precision_offset, self.backend)
            future = self._submit(_chunk_on_worker, *arguments, address=worker.address)
            self.running[future] = (_Job(chunk, attempt, now + seconds, seconds), worker.address)
            load[worker.address] += 1

    def _stuck(self, now: float) -> None:
        """Refuse the run when chunks are left, none runs and no self-check is under way, for REJOIN_SECONDS
        (at once when every worker of the cluster failed the self-check before any passed)."""
        checking = any(worker.check is not None for worker in self.workers.values())
        if not self.queue or self.running or checking:
            self.stuck_since = None
            return
        if not self.passed_once and self.workers and all(w.refused for w in self.workers.values()):
            raise ClusterError(f"no worker passed the numerics self-check ({self._states()})")
        if self.stuck_since is None:
            self.stuck_since = now
        if now - self.stuck_since <= REJOIN_SECONDS:
            return
        if not self.passed_once:
            raise ClusterError(
                f"no worker passed the numerics self-check within {REJOIN_SECONDS:g} s "
                f"({self._states() or 'the cluster has no worker'})"
            )
        if not self.lost:
            raise WorkerLost(
                f"{self._where()}no worker that passed the numerics self-check could take a chunk within "
                f"{REJOIN_SECONDS:g} s ({self._states() or 'no worker is left'})"
            )
        others = self._states(but=self.lost_by)
        raise WorkerLost(
            f"{self._where()}{self.lost}, and no other worker that passed the numerics self-check took it "
            f"over within {REJOIN_SECONDS:g} s ({f'the others: {others}' if others else 'no other worker'})"
        )

    def _states(self, but: str = "") -> str:
        return "; ".join(
            f"{address}: {worker.state()}"
            for address, worker in sorted(self.workers.items())
            if address != but
        )


def _on_dask(
    scheduler: str,
    encoding: Sinusoidal,
    backend: str,
    pieces: Sequence[Chunk],
    precision_offset: int,
    on_chunk: Callable[[ChunkRun], None] | None,
    dask_log: bool,
) -> list[ChunkRun]:
    """The chunks on the Dask cluster at `scheduler` (`_connect`, `_DaskRun`), with Dask's log shown only when
    `dask_log`; the client is closed after, within CONNECT_SECONDS."""
    import distributed  # noqa: F401  (without the dask extra: ImportError)

    with _dask_log(dask_log):
        client = _connect(scheduler)
        try:
            return _DaskRun(client, scheduler, encoding, backend, precision_offset, on_chunk).run(pieces)
        finally:
            with contextlib.suppress(Exception):
                client.close(timeout=CONNECT_SECONDS)


# ------------------------------------------------------------------------------------------- the search


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
    dask_log: bool = False,
) -> Chunked:
    """`certified_separation` over from_offset ≤ k < max_offset in `chunks` chunks, merged (`merge`): in
    this process (workers 1), in `workers` local processes of one BLAS thread each (`_on_processes`), or on
    the Dask cluster at `scheduler` (`_DaskRun`: its workers first run `numerics_self_check`, and a worker
    failing it gets no chunk). Each chunk's screen computes on `backend` (`BACKENDS`) where it runs.
    `on_chunk(run)` hears of each chunk as it is done. A lost chunk runs again elsewhere; when that cannot be
    done the run is refused (`WorkerLost`; `ClusterError` for a cluster that cannot take the chunks at all).
    Dask's own log is shown only with `dask_log`."""
    if not 1 <= from_offset < max_offset <= MAX_SEPARATION_OFFSET:
        raise ValueError(
            f"offsets must satisfy 1 ≤ from_offset < max_offset ≤ 2^62, got {from_offset}, {max_offset}"
        )
    pieces = split(from_offset, max_offset, chunks)
    workers = require_positive_int(workers, "workers")
    screen_numerics(backend)  # a bad name is refused here, and the backend's import fails here if it must

    if scheduler is not None:
        runs = _on_dask(scheduler, encoding, backend, pieces, max_offset, on_chunk, dask_log)
    elif workers == 1:
        runs, best = [], math.inf
        for chunk in pieces:
            run = run_chunk(encoding, chunk, None if math.isinf(best) else best, max_offset, backend)
            runs.append(run)
            best = min(best, attained(run.separation))
            if on_chunk is not None:
                on_chunk(run)
    else:
        runs = _on_processes(encoding, pieces, workers, max_offset, backend, on_chunk)
    return merge(encoding, runs, from_offset, max_offset)


def chunked_memory(d: int, chunks: Sequence[Chunk], workers: int) -> int:
    """Bytes the chunked search holds at most on this machine: one search's (`separation_memory`, to the
    range's end) and its certificate's (`tiling_memory`, of the largest chunk) per local worker process (a
    cluster's workers hold theirs on their own machines), and the certificates of every chunk, which the merge
    holds and checks."""
    end = max(chunk.max_offset for chunk in chunks)
    each = separation_memory(d, end) + tiling_memory(d, max(chunk.size for chunk in chunks))
    return each * max(1, workers) + sum(tiling_memory(d, chunk.size) for chunk in chunks)


def chunked_seconds(d: int, base: float, chunks: Sequence[Chunk], workers: int) -> float:
    """A rough estimate of the whole run's wall seconds over `workers` (`separation_seconds` per chunk, added
    up: a seeded chunk far from k = 1 prunes no less than this says), and of the check of the chunks'
    certificates in this process after, as of one certificate of the whole range (`separation_seconds` with
    `check`: the seeded chunks exclude what a single run would)."""
    each = [separation_seconds(d, base, chunk.max_offset, chunk.from_offset) for chunk in chunks]
    first, end = chunks[0].from_offset, chunks[-1].max_offset
    return sum(each) / max(1, workers) + separation_seconds(d, base, end, first, check=True)
