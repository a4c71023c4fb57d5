"""Benchmark of `pe-verify check`: the default battery (60 Hypothesis examples per property, positions up
to 65 536) on a reference implementation of each family at one d, against a baseline measured in the same
run: one call of the implementation on d inputs (RoPE: d basis vectors at one position, which the
identification makes at every probed position; sinusoidal: a table of d positions; ALiBi and frequencies:
one call), so that the ratio says how many such calls the battery costs. The battery is timed in this process
(`run_battery`) and as `pe-verify check` runs it, with the implementation in a child process (`check.check`,
after a first run that starts the fork server, whose start is timed apart).

    python benchmarks/check_battery.py [--d 4096] [--family rope sinusoidal alibi rope-frequencies]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pe_verify import check
from pe_verify.properties.battery import Settings, run_battery
from pe_verify.properties.encodings.rope import apply_rope
from pe_verify.properties.encodings.scaling import rope_frequencies
from pe_verify.properties.encodings.sinusoidal import sinusoidal_encoding

LIMIT_SECONDS = 10.0


def rotate(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    return apply_rope(x, positions, layout="half_split")


def encode(positions: np.ndarray, d: int) -> np.ndarray:
    return sinusoidal_encoding(positions, d)


def slopes(n_heads: int) -> np.ndarray:
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


IMPLEMENTATIONS: dict[str, tuple[Callable, Callable[[int], object]]] = {
    "rope": (rotate, lambda d: rotate(np.eye(d), np.full(d, 1000))),
    "sinusoidal": (encode, lambda d: encode(np.arange(d), d)),
    "alibi": (slopes, lambda d: slopes(64)),
    "rope-frequencies": (rope_frequencies, lambda d: rope_frequencies(d)),
}


def timed(run: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=4096)
    parser.add_argument("--family", nargs="+", default=list(IMPLEMENTATIONS), choices=list(IMPLEMENTATIONS))
    args = parser.parse_args()
    here = Path(__file__).resolve()
    _, start_s = timed(lambda: check.check("alibi", f"{here}:slopes", Settings(examples=1, heads=(1,))))
    print(f"d = {args.d}, default battery (60 examples per property, positions < 65536)")
    print(f"the fork server of `pe-verify check` started in {start_s:.2f} s (once per process)")
    print("family             battery s   in child s   baseline s    ratio   under 10 s   passed")
    for family in args.family:
        function, baseline = IMPLEMENTATIONS[family]
        settings = Settings() if family == "alibi" else Settings(ds=(args.d,))
        _, base_s = timed(lambda baseline=baseline: baseline(args.d))
        report, battery_s = timed(lambda f=family, g=function, s=settings: run_battery(f, g, s))
        spec = f"{here}:{function.__name__}"
        isolated, child_s = timed(lambda f=family, t=spec, s=settings: check.check(f, t, s))
        under = max(battery_s, child_s) < LIMIT_SECONDS
        print(
            f"{family:<18} {battery_s:9.2f} {child_s:12.2f} {base_s:12.4f} {battery_s / base_s:8.0f}   "
            f"{under!s:>10}   {report.passed and isolated.passed}"
        )


if __name__ == "__main__":
    main()
