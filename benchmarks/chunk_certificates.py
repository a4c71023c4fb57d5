"""Benchmark of the chunk certificates' check (`separation_certificates.check_chunks`) against the search.

Each configuration is certified in chunks in this process, one after another and seeded as
`pe-verify separation --chunks` seeds them, each returning its certificate; then the merge checks them all.
Printed per configuration: the CPU seconds of the chunks' searches (their certificates included) and of the
check, in the same run, and their ratio check / search (the target is at most 0.1), with how many offsets the
chunks decided one by one (checked offset by offset, the costly part) and whether the merged answer is
certified and is the single run's.

    python benchmarks/chunk_certificates.py [--only NAME ...] [--chunks 8]
    python benchmarks/chunk_certificates.py list
"""

from __future__ import annotations

import argparse
import math
import time

from pe_verify.properties.analyses.separation import beyond_longest_wavelength
from pe_verify.properties.analyses.separation_chunks import attained, merge, run_chunk, split
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

#: (name, d, max_offset, far): far ranges start one longest wavelength out, the others at k = 1.
CONFIGURATIONS = (
    ("d512-2^31", 512, 2**31, False),
    ("d64-2^28", 64, 2**28, False),
    ("d6-2^26", 6, 2**26, False),
    ("d6-far-2^24", 6, 2**24, True),
    ("d512-far-2^21", 512, 2**21, True),
    # Larger ranges, where the check's fixed costs (tables, the minimum's ball) no longer hide its per-offset
    # and per-piece costs: few pairs from k = 1, and the far range at d = 512.
    ("d6-2^28", 6, 2**28, False),
    ("d512-far-2^24", 512, 2**24, True),
)


def run(name: str, d: int, max_offset: int, far: bool, chunks: int) -> float:
    """Certify one configuration in chunks, check the certificates, print both CPU times; the ratio."""
    encoding = Sinusoidal(d, "10000")
    first = beyond_longest_wavelength(encoding) if far else 1
    runs, best, search = [], math.inf, 0.0
    for chunk in split(first, max_offset, chunks):
        started = time.process_time()
        part = run_chunk(encoding, chunk, None if math.isinf(best) else best, max_offset)
        search += time.process_time() - started
        runs.append(part)
        best = min(best, attained(part.separation))
    merged = merge(encoding, runs, first, max_offset)
    singly = sum(int(run.separation.tiling.lengths[run.separation.tiling.one_by_one].sum()) for run in runs)
    ratio = merged.check_seconds / search
    print(
        f"{name}: {first} ≤ k < {max_offset} in {len(runs)} chunks, {singly} offsets decided one by one: "
        f"search {search:.2f} s CPU, check {merged.check_seconds:.2f} s CPU, ratio check / search "
        f"{ratio:.3f}; certified {merged.separation.certified}, audit "
        f"{'passed' if not merged.audit else merged.audit}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", choices=("run", "list"), default="run")
    parser.add_argument("--only", nargs="*", help="configuration names (see `list`)")
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--max-offset", type=int, help="override every configuration's end (a small run)")
    args = parser.parse_args()
    chosen = [c for c in CONFIGURATIONS if not args.only or c[0] in args.only]
    if args.command == "list":
        for name, d, max_offset, far in chosen:
            print(f"{name}: d = {d}, {'far range' if far else 'from k = 1'} to {max_offset}")
        return
    for name, d, max_offset, far in chosen:
        run(name, d, args.max_offset or max_offset, far, args.chunks)


if __name__ == "__main__":
    main()
