"""Benchmarks of the nearest cross-dimension pair: sort-based scan against all pairs, the target size, the
gap against n with the arcsine prediction, ball-arithmetic certificates, and the scan against bare numpy.

    python benchmarks/cross_dimension_scan.py compare [--sizes 100x6 1000x6 40x512]
    python benchmarks/cross_dimension_scan.py target [--n 16666667 --d 6]
    python benchmarks/cross_dimension_scan.py baseline [--sizes 16666667x6 195313x512]
    python benchmarks/cross_dimension_scan.py gap [--max-values 100000000]
    python benchmarks/cross_dimension_scan.py certify
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np

from pe_verify.properties.analyses import near_collision as nc
from pe_verify.properties.analyses.collisions import exact_coincidence_mask
from pe_verify.properties.encodings.sinusoidal import Sinusoidal, pair_index


def timed(run: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def describe(pair: nc.NearPair) -> str:
    return f"{pair.first}–{pair.second} gap {mpmath.nstr(pair.gap, 15)} (float64 {pair.float_gap:.3e})"


def compare(sizes: list[str]) -> None:
    print("n x d        values  naive s   scan s   ratio  same candidates  nearest")
    for size in sizes:
        n, d = (int(part) for part in size.split("x"))
        naive, naive_s = timed(lambda n=n, d=d: nc.nearest_cross_dimension_pair_naive(Sinusoidal(d), n))
        fast, fast_s = timed(lambda n=n, d=d: nc.nearest_cross_dimension_pair(Sinusoidal(d), n))
        same = naive.candidates == fast.candidates
        print(
            f"{size:>10} {n * d:>8} {naive_s:8.3f} {fast_s:8.3f} {naive_s / fast_s:7.1f}  {same!s:>15}  "
            f"{describe(fast.nearest)} [{fast.evidence}]"
        )


def target(n: int, d: int) -> None:
    result, seconds = timed(lambda: nc.nearest_cross_dimension_pair(Sinusoidal(d), n))
    print(f"n = {n}, d = {d}: {n * d} values in {seconds:.1f} s, peak memory {peak_mib():.0f} MiB")
    print(
        f"nearest {describe(result.nearest)}, evidence {result.evidence}, {len(result.candidates)} candidates"
    )
    for pair in result.candidates[:5]:
        print("   ", describe(pair))


def _exclusion(d: int) -> np.ndarray:
    """The dim pairs the `collisions` command leaves out: those that coincide exactly (none for d = 6)."""
    return exact_coincidence_mask(d, Fraction(10000))


def _bare_numpy(n: int, d: int) -> tuple[float, float]:
    """np.sin of the n×d float64 angle table p·ω_j (built before the clock starts), then np.sort, in place:
    seconds and peak MiB."""
    angles = np.arange(n, dtype=np.float64)[:, None] * Sinusoidal(d).frequencies64()[pair_index(d)][None, :]
    started = time.perf_counter()
    np.sin(angles, out=angles)
    angles.reshape(-1).sort()
    return time.perf_counter() - started, peak_mib()


def _scan(n: int, d: int) -> tuple[float, float, str]:
    """The cross-dimension scan, as `pe-verify collisions` runs it (exact coincidences left out): seconds,
    peak MiB and the nearest pair."""
    result, seconds = timed(lambda: nc.nearest_cross_dimension_pair(Sinusoidal(d), n, exclude=_exclusion(d)))
    return (
        seconds,
        peak_mib(),
        f"{describe(result.nearest)} [{result.evidence}, {len(result.candidates)} candidates]",
    )


def _in_child(run: Callable[[int, int], tuple], n: int, d: int) -> tuple:
    """`run(n, d)` in a fresh process, so that each peak memory is its own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(run, (n, d))


def baseline(sizes: list[str]) -> None:
    """Per size n×d: bare numpy (np.sin + np.sort of n·d float64 values) and the scan, each in a process of
    its own, one after the other in this run; the ratio is scan time over numpy time."""
    print("n x d           values  numpy s  scan s  ratio  numpy MiB  scan MiB  nearest")
    for size in sizes:
        n, d = (int(part) for part in size.split("x"))
        numpy_s, numpy_mib = _in_child(_bare_numpy, n, d)
        scan_s, scan_mib, nearest = _in_child(_scan, n, d)
        print(
            f"{size:>13} {n * d:>10} {numpy_s:8.2f} {scan_s:7.2f} {scan_s / numpy_s:6.2f} "
            f"{numpy_mib:10.0f} {scan_mib:9.0f}  {nearest}"
        )


def gap_table(max_values: int) -> None:
    print(
        "d    n          M          valid pairs   nearest gap (50 digits)  evidence   predicted   "
        "gap/pred  pairs < 100·pred: seen/expected  s     pair"
    )
    for d, exclude in ((6, None), (512, exact_coincidence_mask(512, Fraction(10000)))):
        ns = [10**k for k in range(2, 9) if 10**k * d <= max_values]
        for row in nc.gap_against_n(Sinusoidal(d), ns, exclude=exclude):
            pair = row.nearest.nearest
            seen = row.observed_close
            print(
                f"{d:<4} {row.n:<10} {row.values:<10} {row.valid_pairs:<13.3e} "
                f"{mpmath.nstr(pair.gap, 12):<24} {row.nearest.evidence:<10} {row.predicted:<11.3e} "
                f"{float(pair.gap) / row.predicted:<9.3f} {seen:>6} / {row.expected_close:<8.1f} "
                f"= {seen / row.expected_close:<5.2f}    {row.seconds:<5.1f} {pair.first}–{pair.second}"
            )


def certify() -> None:
    sin_cos_only = np.equal.outer(np.arange(512) % 2, np.arange(512) % 2)
    for n, d, exclude, label in (
        (10**4, 6, None, "d = 6, all valid pairs"),
        (10**5, 6, None, "d = 6, all valid pairs"),
        (2000, 512, sin_cos_only, "d = 512, sin–cos pairs only"),
    ):
        nearest = nc.nearest_cross_dimension_pair(Sinusoidal(d), n, exclude=exclude)
        delta = float(nearest.nearest.gap) * 0.99
        certificate, seconds = timed(
            lambda n=n, d=d, e=exclude, dl=delta: nc.certify_cross_dimension_gap(
                Sinusoidal(d), n, dl, exclude=e
            )
        )
        print(f"{label}, positions < {n}: {seconds:.1f} s; nearest {describe(nearest.nearest)}")
        print("   ", certificate.statement)
        above = float(nearest.nearest.gap) * 1.001
        print(
            f"    with delta = {above:.6e} (above the true gap): holds = "
            f"{nc.certify_cross_dimension_gap(Sinusoidal(d), n, above, exclude=exclude).holds}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    compare_parser = commands.add_parser("compare", help="naive all-pairs against the sort-based scan")
    compare_parser.add_argument(
        "--sizes", nargs="+", default=["100x6", "500x6", "2000x6", "4000x6", "40x512"]
    )
    target_parser = commands.add_parser("target", help="one run at the target size: time and peak memory")
    target_parser.add_argument("--n", type=int, default=16_666_667)
    target_parser.add_argument("--d", type=int, default=6)
    gap_parser = commands.add_parser("gap", help="nearest gap against n (d = 6, 512) and the prediction")
    gap_parser.add_argument("--max-values", type=int, default=10**8)
    commands.add_parser("certify", help="ball-arithmetic certificates over finite ranges")
    baseline_parser = commands.add_parser(
        "baseline", help="the scan against np.sin + np.sort of as many float64 values, in the same run"
    )
    baseline_parser.add_argument("--sizes", nargs="+", default=["16666667x6", "195313x512"])
    args = parser.parse_args()
    if args.command == "compare":
        compare(args.sizes)
    elif args.command == "target":
        target(args.n, args.d)
    elif args.command == "gap":
        gap_table(args.max_values)
    elif args.command == "baseline":
        baseline(args.sizes)
    else:
        certify()


if __name__ == "__main__":
    main()
