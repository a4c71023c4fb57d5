"""Benchmarks of whole-vector near repeats: offset scan by angle addition against all pairs, the target size,
and the offsets that come closest for the d = 6 of document 000 and two real models.

    python benchmarks/vector_near_collision.py compare [--sizes 250 500 1000 2000] [--d 512]
    python benchmarks/vector_near_collision.py target [--n 10000000 --d 512]
    python benchmarks/vector_near_collision.py offsets [--n 10000000] [--count 5]
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from collections.abc import Callable

import mpmath

from pe_verify.properties.analyses import near_collision as nc
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


def timed(run: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def describe(repeats: nc.NearRepeats) -> str:
    return ", ".join(f"k={r.offset}: {distance(r)}" for r in repeats.repeats)


def distance(repeat: nc.NearRepeat) -> str:
    if repeat.distance is None:
        return f"{repeat.float_distance:.15g} (float64)"
    return mpmath.nstr(repeat.distance, 15)


def compare(sizes: list[int], d: int) -> None:
    print(f"d = {d}, base 10000")
    print("n       naive s   offset s   ratio   same best offset  best offsets (offset scan, 50 digits)")
    for n in sizes:
        naive, naive_s = timed(lambda n=n: nc.nearest_vector_pairs_naive(Sinusoidal(d), n, count=3))
        fast, fast_s = timed(lambda n=n: nc.nearest_vector_offsets(Sinusoidal(d), n, count=3))
        same = naive.repeats[0].offset == fast.repeats[0].offset
        print(f"{n:<7} {naive_s:8.3f} {fast_s:9.3f} {naive_s / fast_s:8.1f}   {same!s:>15}  {describe(fast)}")


def target(n: int, d: int) -> None:
    result, seconds = timed(lambda: nc.nearest_vector_offsets(Sinusoidal(d), n))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"n = {n}, d = {d}: offsets 1 ≤ k < n in {seconds:.2f} s, peak memory {peak:.0f} MiB")
    print(f"closest offsets ({result.evidence}, {result.candidates} re-ranked): {describe(result)}")


def offsets(n: int, count: int) -> None:
    models = ((6, 10000.0, "document 000, d = 6"), (512, 10000.0, "d = 512"), (4096, 500000.0, "d = 4096"))
    for d, base, label in models:
        slowest_period = 2 * math.pi * base ** ((d - 2) / d)
        for min_offset in (1, math.ceil(slowest_period)):
            if min_offset >= n:
                continue
            result, seconds = timed(
                lambda d=d, base=base, m=min_offset: nc.nearest_vector_offsets(
                    Sinusoidal(d, base), n, count=count, min_offset=m
                )
            )
            print(
                f"{label}, base {base:g}, offsets {min_offset} ≤ k < {n} "
                f"({seconds:.1f} s, {result.evidence}, {result.candidates} re-ranked):"
            )
            for repeat in result.repeats:
                print(f"    k = {repeat.offset:>9}  ‖PE(p + k) − PE(p)‖ = {mpmath.nstr(repeat.distance, 20)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    compare_parser = commands.add_parser("compare", help="naive all-pairs against the offset scan")
    compare_parser.add_argument("--sizes", nargs="+", type=int, default=[250, 500, 1000, 2000])
    compare_parser.add_argument("--d", type=int, default=512)
    target_parser = commands.add_parser("target", help="one run at the target size: time and peak memory")
    target_parser.add_argument("--n", type=int, default=10**7)
    target_parser.add_argument("--d", type=int, default=512)
    offsets_parser = commands.add_parser(
        "offsets", help="closest offsets for d = 6, 512, 4096: all, and beyond the slowest period"
    )
    offsets_parser.add_argument("--n", type=int, default=10**7)
    offsets_parser.add_argument("--count", type=int, default=5)
    args = parser.parse_args()
    if args.command == "compare":
        compare(args.sizes, args.d)
    elif args.command == "target":
        target(args.n, args.d)
    else:
        offsets(args.n, args.count)


if __name__ == "__main__":
    main()
