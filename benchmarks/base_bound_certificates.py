"""Benchmark of the base-bound certificates' failing-cell step: each failing cell's witness B(m) evaluated in
arb on the ball of the cell's bases (what `check_infimum` does: no float64 value, no assumed accuracy of cos
or pow), against a baseline measured in the same run: the same witnesses summed in float64 at the cells'
centres with numpy (the step as it would be if numpy's cos and pow were trusted). The whole re-check of each
certificate (`committed_infimum`: the cells, the bisection in arb, the top base's scan) is timed beside them.

    python benchmarks/base_bound_certificates.py [--lengths 4096 1048576] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from pe_verify.claims import reproduce_base_bound as rb
from pe_verify.properties.analyses import base_bound as bb
from pe_verify.properties.encodings.frequencies import frequencies

COMMITTED = [rb.BINARY * k for k in rb.ALL_ROWS if rb.BINARY * k > rb.CERTIFIED_LENGTH]


def seconds(run: Callable[[], object], repeat: int) -> float:
    """The median CPU seconds of `repeat` calls."""
    found = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        found.append(time.process_time() - start)
    return statistics.median(found)


def in_balls(cells: Sequence[bb.Cell]) -> bool:
    return all(bb._fails_throughout(cell, rb.D, bb.cosine_sum) for cell in cells)


def in_float64(cells: Sequence[bb.Cell]) -> np.ndarray:
    """The baseline: B(m) at each cell's centre in float64, numpy's cos and pow taken on trust."""
    return np.array(
        [
            np.cos(cell.witness * frequencies(rb.D, float(cell.centre), count=rb.D // 2)).sum()
            for cell in cells
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=COMMITTED, choices=COMMITTED)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args(argv)
    totals = [0.0, 0.0, 0.0]
    print(f"{'L':>8} {'cells':>6} {'balls s':>8} {'float64 s':>9} {'ratio':>6} {'whole check s':>13}")
    for length in arguments.lengths:
        found = rb.committed_infimum(length)
        assert isinstance(found, bb.Infimum), found
        cells = found.failing
        assert in_balls(cells)
        balls = seconds(lambda cells=cells: in_balls(cells), arguments.repeat)
        floats = seconds(lambda cells=cells: in_float64(cells), arguments.repeat)

        def whole(length: int = length) -> None:
            rb.committed_infimum.cache_clear()
            rb.committed_infimum(length)

        entire = seconds(whole, arguments.repeat)
        for index, value in enumerate((balls, floats, entire)):
            totals[index] += value
        print(
            f"{length:>8} {len(cells):>6} {balls:>8.3f} {floats:>9.3f} {balls / floats:>6.1f} {entire:>13.3f}"
        )
    balls, floats, entire = totals
    print(f"{'all':>8} {'':>6} {balls:>8.3f} {floats:>9.3f} {balls / floats:>6.1f} {entire:>13.3f}")
    print(
        f"ratio balls / float64 baseline: {balls / floats:.1f}; "
        f"the ball step is {balls / entire:.0%} of the whole re-check"
    )


if __name__ == "__main__":
    main()
