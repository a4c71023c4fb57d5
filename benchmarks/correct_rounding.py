"""Benchmark of correctly rounded float32 sin against the float64 sin cast to float32 it starts from, on the
common code's angle table (positions × frequencies, d = 512), in chunks of the size the table scans use.

    python benchmarks/correct_rounding.py [--positions 65536] [--d 512] [--chunk-values 65536] [--repeat 3]

Prints nanoseconds per value for both and their ratio, each the best of `--repeat` runs in the same process.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from pe_verify.properties.encodings.sinusoidal import Sinusoidal
from pe_verify.properties.numerics.correct_rounding import correctly_rounded


def best_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=65536)
    parser.add_argument("--d", type=int, default=512)
    parser.add_argument("--chunk-values", type=int, default=2**16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frequencies = Sinusoidal(args.d).code_frequencies()
    rows = max(1, args.chunk_values // frequencies.size)
    chunks = [
        np.arange(start, min(start + rows, args.positions), dtype=np.float32)[:, None] * frequencies[None, :]
        for start in range(0, args.positions, rows)
    ]
    values = args.positions * frequencies.size

    def bare() -> None:
        for angles in chunks:
            np.sin(angles.astype(np.float64)).astype(np.float32)

    def rounded() -> None:
        for angles in chunks:
            correctly_rounded("sin", "float32", angles)

    baseline = best_seconds(bare, args.repeat)
    measured = best_seconds(rounded, args.repeat)
    bare_ns, rounded_ns = baseline / values * 1e9, measured / values * 1e9
    print(
        f"{values} values in chunks of {rows} rows: float64 sin cast to float32 {bare_ns:.1f} ns a value, "
        f"correctly rounded {rounded_ns:.1f} ns a value, ratio {measured / baseline:.2f}×"
    )


if __name__ == "__main__":
    main()
