"""Benchmarks of the certified separation search (`pe-verify separation`) against brute force.

Brute force is the float64 offset scan `near_collision.offset_squared_distances` (blocked angle addition, a
BLAS product per block, not certified) over every offset; it runs here at the largest size it can do in
memory, and the certified search runs at the same size in the same run, then at the target size.

    python benchmarks/separation.py targets [--only NAME ...] [--brute-force-offsets 67108864]
    python benchmarks/separation.py list
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pe_verify.properties.analyses.near_collision import offset_squared_distances
from pe_verify.properties.analyses.separation import (
    beyond_longest_wavelength,
    certified_separation,
    longest_excludable_interval,
)
from pe_verify.properties.encodings.sinusoidal import FIXED_POINT_DPS, Sinusoidal


@dataclass(frozen=True)
class Target:
    """One configuration: d, base, the offsets [from_offset, max_offset) (from_offset 0 means one longest
    wavelength), the time the issue sets, and search settings (default `separation.search_shape`)."""

    name: str
    d: int
    base: str
    max_offset: int
    far: bool
    seconds: float | None
    leaf: int | None = None
    branching: int | None = None


TARGETS = (
    Target("d512-global-2^31", 512, "10000", 2**31, False, 10),
    Target("d512-far-2^31", 512, "10000", 2**31, True, 60),
    Target("d6-global-2^31", 6, "10000", 2**31, False, None),
    Target("d6-far-2^31", 6, "10000", 2**31, True, None),
    Target("d6-far-2^40", 6, "10000", 2**40, True, 600),
    Target("d768-global-2^31", 768, "500000", 2**31, False, None),
    Target("d768-far-2^31", 768, "500000", 2**31, True, None),
    Target("d4096-global-2^31", 4096, "500000", 2**31, False, None),
    Target("d4096-far-2^28", 4096, "500000", 2**28, True, None),
)


def timed(run: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def brute_force(encoding: Sinusoidal, first: int, stop: int) -> tuple[int, float]:
    """The float64 minimiser of S(k) over first ≤ k < stop, and √S there."""
    squared = offset_squared_distances(stop, encoding.frequencies_mp(FIXED_POINT_DPS))[first:]
    best = int(np.argmin(squared))
    return first + best, math.sqrt(max(float(squared[best]), 0.0))


def run(target: Target, brute_offsets: int) -> None:
    encoding = Sinusoidal(target.d, target.base)
    first = beyond_longest_wavelength(encoding) if target.far else 1
    search = {"leaf": target.leaf, "branching": target.branching}
    size = min(brute_offsets, target.max_offset)
    (brute_k, brute_distance), brute_s = timed(lambda: brute_force(encoding, first, size))
    small, small_s = timed(lambda: certified_separation(encoding, size, first, **search))
    same = small.argmin_offsets == (brute_k,)
    print(
        f"{target.name}: offsets {first} ≤ k < {size}: brute force {brute_s:.2f} s (k = {brute_k}, "
        f"{brute_distance:.12g}), certified {small_s:.2f} s (k = {small.argmin_offsets}), ratio "
        f"{brute_s / small_s:.1f}×, same minimiser: {same}"
    )
    if size == target.max_offset:
        return
    found, seconds = timed(lambda: certified_separation(encoding, target.max_offset, first, **search))
    estimate = brute_s * (target.max_offset - first) / (size - first)
    goal = "" if target.seconds is None else f" (target {target.seconds:g} s: {seconds <= target.seconds})"
    phases = ", ".join(f"{key} {value:.1f} s" for key, value in found.seconds.items())
    if target.far and target.d >= 512:
        squared = float(found.minimum.mid()) ** 2
        print(
            f"    beyond: at this minimum the arc bound excludes no interval longer than "
            f"{longest_excludable_interval(encoding, squared)} offsets; at the rate of this run K = 2^40 "
            f"would take {seconds * 2**40 / target.max_offset / 3600:.1f} h"
        )
    print(
        f"    to {target.max_offset}: certified in {seconds:.1f} s{goal}; brute force at its measured rate "
        f"would take {estimate:.0f} s ({estimate / seconds:.1f}×); minimum "
        f"{found.minimum.str(20, radius=False)} at k = {found.argmin_offsets}, certified {found.certified}; "
        f"by bounds {found.by_bounds}, screened {found.by_screen}, phases {phases}; "
        f"peak {peak_mib():.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    targets = commands.add_parser("targets", help="every configuration, brute force beside it")
    targets.add_argument("--only", nargs="+", choices=[t.name for t in TARGETS])
    targets.add_argument("--brute-force-offsets", type=int, default=2**26)
    commands.add_parser("list", help="the configurations")
    args = parser.parse_args()
    if args.command == "list":
        for target in TARGETS:
            print(target)
        return
    for target in TARGETS:
        if args.only is None or target.name in args.only:
            run(target, args.brute_force_offsets if target.d <= 768 else args.brute_force_offsets // 8)


if __name__ == "__main__":
    main()
