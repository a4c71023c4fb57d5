"""Benchmark of `pe-verify model`: every answer for a bundled model at a planned context (default 10^6), in
this process, with the transformers comparison when transformers is installed (`--no-cross-check` leaves it
out), against a baseline measured in the same run: the bare numpy computation of each RoPE layer group's
inv_freq and its cos/sin table over the planned context (the least any tool must compute to use the model at
that length). The target is under `LIMIT_SECONDS` for every bundled model.

    python benchmarks/model_answers.py [--context 1000000] [--model llama-3.1-8b ...] [--repeat 1]
        [--no-cross-check]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable

import numpy as np

from pe_verify.models import analyse_model
from pe_verify.properties.analyses.model_setup import model_frequencies
from pe_verify.properties.encodings.model_config import bundled_models, read_config

LIMIT_SECONDS = 10.0


def timed(run: Callable[[], object], repeat: int) -> float:
    """The least wall time of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def _rotating(name: str) -> list:
    return [
        g.position for g in read_config(bundled_models()[name].config).groups if g.position.scheme == "rope"
    ]


def baseline(name: str, context: int) -> Callable[[], object]:
    """Each RoPE group's inv_freq (float64) and cos, sin of every position × pair, in float32 as models cache
    them."""
    tables = [model_frequencies(rule, context).float64.astype(np.float32) for rule in _rotating(name)]

    def run() -> object:
        out = []
        for inv_freq in tables:
            angles = np.arange(context, dtype=np.float32)[:, None] * inv_freq[None, :]
            out.append((np.cos(angles), np.sin(angles)))
        return out

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=10**6)
    parser.add_argument("--model", action="append", help="a bundled model (default: every RoPE one)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-cross-check", action="store_true", help="leave the transformers comparison out")
    args = parser.parse_args()
    names = args.model or [name for name in bundled_models() if _rotating(name)]
    cross = not args.no_cross_check and importlib.util.find_spec("transformers") is not None
    with_cross = "with the transformers comparison" if cross else "without the transformers comparison"
    print(f"every answer of `pe-verify model` at context {args.context}, {with_cross}")
    worst = 0.0
    for name in names:
        seconds = timed(lambda name=name: analyse_model(name, args.context, cross_check=cross), args.repeat)
        reference = timed(baseline(name, args.context), args.repeat)
        worst = max(worst, seconds)
        print(
            f"{name:<30} {seconds:7.2f} s; baseline (inv_freq and its cos/sin tables) {reference:7.3f} s; "
            f"ratio {seconds / reference:6.1f}"
        )
    verdict = "holds" if worst < LIMIT_SECONDS else "does not hold"
    print(f"slowest {worst:.2f} s: the target of {LIMIT_SECONDS:g} s per model {verdict}")


if __name__ == "__main__":
    main()
