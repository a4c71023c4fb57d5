"""Benchmark of the BLAS threads of one-process `certified_separation`: the d = 512 far range (beyond the
longest wavelength, to --max-offset) with the BLAS threads the search chooses (`SEARCH_BLAS_THREADS`) beside
as many as the machine has (the search before it chose), each on a quiet machine and beside one busy
neighbour (a process spinning on one core), all in the same run. It prints each wall time and CPU time, and
the ratio of busy to quiet for each choice: the search's choice must keep a busy machine within 2× of its
quiet time.

    python benchmarks/separation_threads.py [--d 512] [--max-offset 2147483648] [--repeat 1]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import time
from collections.abc import Iterator

from threadpoolctl import threadpool_limits

from pe_verify.properties.analyses.separation import (
    SEARCH_BLAS_THREADS,
    beyond_longest_wavelength,
    certified_separation,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


def _spin() -> None:
    """A neighbour that keeps one core busy until it is stopped."""
    while True:
        pass


@contextlib.contextmanager
def neighbour(busy: bool) -> Iterator[None]:
    """One process spinning on a core for the duration (none when not `busy`)."""
    if not busy:
        yield
        return
    process = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    process.start()
    try:
        time.sleep(0.5)
        yield
    finally:
        process.terminate()
        process.join()


def timed(
    encoding: Sinusoidal, first: int, last: int, threads: int | None, repeat: int
) -> tuple[float, float]:
    """Median wall and CPU seconds of the search at `threads` BLAS threads (None: the search's own choice)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        if threads is None:
            found = certified_separation(encoding, last, first)
        else:
            with threadpool_limits(limits=threads, user_api="blas"):
                found = certified_separation.__wrapped__(encoding, last, first)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        assert found.certified, found.reason
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d", type=int, default=512)
    parser.add_argument("--max-offset", type=int, default=2**31)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    encoding = Sinusoidal(args.d, "10000")
    first = beyond_longest_wavelength(encoding)
    cores = os.cpu_count() or 1
    print(f"d = {args.d}, far range {first} ≤ k < {args.max_offset}; {cores} cores")
    choices = {
        f"{SEARCH_BLAS_THREADS} BLAS thread(s), the search's choice": None,
        f"{cores} BLAS threads": cores,
    }
    results = {}
    for busy in (False, True):
        with neighbour(busy):
            for name, threads in choices.items():
                wall, cpu = timed(encoding, first, args.max_offset, threads, args.repeat)
                results[name, busy] = wall
                print(f"{'busy' if busy else 'quiet'}, {name}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    for name in choices:
        print(f"ratio busy / quiet, {name}: {results[name, True] / results[name, False]:.2f}")


if __name__ == "__main__":
    main()
