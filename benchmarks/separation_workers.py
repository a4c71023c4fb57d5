"""Benchmark of certified separation in chunks (`pe-verify separation --workers N`, `--scheduler ADDRESS`).

The baseline, measured in the same run, is one worker: the whole range as one chunk in one spawned process
of one BLAS thread, as each worker runs; against it: the range in chunks on `--workers` such processes, and,
with the dask extra installed, the same chunks on a Dask `LocalCluster` of that many single-threaded workers.
The single search in this process (BLAS threads as the machine sets them) is printed for reference.
Printed: each wall time, the ratio one worker / workers (the target is at least 1.7
with 2 workers), the core-seconds per 2^31 offsets (the chunks' own seconds added up), and the overhead per
chunk of each parallel run (the workers' time not spent certifying, over the chunks), and the seconds the
merge spent checking the chunks' certificates (`separation_certificates`), left out of the wall times and
ratios: beyond the longest wavelength at d = 512 the check re-derives each offset, about 1.5 µs an offset
here, so at the default range each parallel run spends about an hour in it (docs/collisions.md). Every
answer must be the single run's minimum, argmin and certificate.

    python benchmarks/separation_workers.py [--d 512] [--max-offset 2147483648] [--workers 2] [--chunks 8]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import time

from pe_verify.properties.analyses.separation import beyond_longest_wavelength, certified_separation
from pe_verify.properties.analyses.separation_chunks import (
    ONE_THREAD,
    Chunk,
    Chunked,
    _environment,
    chunked_separation,
    run_chunk,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


def report(name: str, found: Chunked, wall: float, single, offsets: int, workers: int) -> None:
    """The run's wall time without the certificates' check, its core-seconds (per 2^31 offsets too), its
    overhead per chunk (the workers' time not spent certifying, wall × workers − the chunks' seconds, over the
    chunks) and the check's seconds."""
    core = sum(found.chunk_seconds)
    overhead = (wall * workers - core) / len(found.runs)
    print(
        f"{name}: {wall:.1f} s wall, {len(found.runs)} chunks of {core:.1f} core-seconds in all "
        f"({core * 2**31 / offsets:.1f} per 2^31 offsets), overhead {overhead:.2f} "
        f"s per chunk; same answer as the single run: {single.same_answer(found.separation)}; audit: "
        f"{'passed' if not found.audit else found.audit}; certificates checked in {found.check_seconds:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d", type=int, default=512)
    parser.add_argument("--max-offset", type=int, default=2**31)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--no-dask", action="store_true", help="leave out the LocalCluster run")
    args = parser.parse_args()
    encoding = Sinusoidal(args.d, "10000")
    first = beyond_longest_wavelength(encoding)
    offsets = args.max_offset - first
    print(f"d = {args.d}, far range {first} ≤ k < {args.max_offset} ({offsets} offsets)")

    started = time.perf_counter()
    single = certified_separation(encoding, args.max_offset, first)
    print(
        f"single search in this process: {time.perf_counter() - started:.1f} s, minimum "
        f"{single.minimum.str(15, radius=False)} at k = {single.argmin_offsets}, certified {single.certified}"
    )
    context = multiprocessing.get_context("spawn")
    started = time.perf_counter()
    with _environment(ONE_THREAD), concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        alone = pool.submit(
            run_chunk, encoding, Chunk(first, args.max_offset), None, args.max_offset
        ).result()
    baseline = time.perf_counter() - started
    print(
        f"one worker (baseline): {baseline:.1f} s wall, {alone.seconds:.1f} s certifying; same answer: "
        f"{single.same_answer(alone.separation)}"
    )

    started = time.perf_counter()
    local = chunked_separation(encoding, args.max_offset, first, chunks=args.chunks, workers=args.workers)
    local_wall = time.perf_counter() - started - local.check_seconds
    report(f"{args.workers} worker processes", local, local_wall, single, offsets, args.workers)
    print(f"ratio one worker / {args.workers} workers: {baseline / local_wall:.2f}")

    if args.no_dask:
        return
    try:
        import distributed
    except ImportError:
        print("Dask: skipped (pip install 'pe-verify[dask]')")
        return
    import dask

    for trim in (False, True):
        # Dask's workers set MALLOC_TRIM_THRESHOLD_ by default: glibc then maps every large array afresh.
        # A LocalCluster's nannies write their settings into this process's environment: restored after.
        kept = {} if trim else {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
        saved = dict(os.environ)
        with (
            dask.config.set(kept),
            distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True) as cluster,
        ):
            started = time.perf_counter()
            found = chunked_separation(
                encoding, args.max_offset, first, chunks=args.chunks, scheduler=cluster.scheduler_address
            )
            wall = time.perf_counter() - started - found.check_seconds
        os.environ.clear()
        os.environ.update(saved)
        setting = "Dask's default MALLOC_TRIM_THRESHOLD_" if trim else "MALLOC_TRIM_THRESHOLD_ unset"
        name = f"Dask LocalCluster of {args.workers} workers, {setting}"
        report(name, found, wall, single, offsets, args.workers)
        print(f"ratio one worker / Dask: {baseline / wall:.2f}")


if __name__ == "__main__":
    main()
