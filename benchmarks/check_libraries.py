"""Benchmark of `pe-verify check` on the RoPE code of real libraries at default settings (head sizes 2, 8, 64
and 128, positions below 65 536, 60 Hypothesis examples per property), each target named as a user names it,
with no adapter: transformers' `apply_rotary_pos_emb` (with its module's `LlamaRotaryEmbedding`), torchtune's
`RotaryPositionalEmbeddings` and rotary-embedding-torch's `RotaryEmbedding`. The command runs as a user runs
it, a process of its own each time; the median wall time of `--repeat` runs is compared with `LIMIT_SECONDS`
and with a baseline measured in the same run: the library's own call as a model makes it, rotating queries
(and keys) of 128 positions at head size 128, so that the ratio says how many such calls a check costs. The
CPU seconds of the command's processes are printed beside the wall time (on a busy machine the wall time
grows, they do not). Libraries that are not installed are left out.

    python benchmarks/check_libraries.py [--library transformers torchtune rotary-embedding-torch]
        [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

LIMIT_SECONDS = 10.0
#: The head size and the number of positions of the baseline call.
D, LENGTH = 128, 128


def transformers_call() -> Callable[[], object]:
    """LlamaRotaryEmbedding's cos and sin for LENGTH positions, applied by `apply_rotary_pos_emb`."""
    import torch
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    config = LlamaConfig(hidden_size=D, num_attention_heads=1, max_position_embeddings=LENGTH)
    rotary = LlamaRotaryEmbedding(config)
    q = k = torch.randn(1, 1, LENGTH, D)
    positions = torch.arange(LENGTH)[None]
    return lambda: apply_rotary_pos_emb(q, k, *rotary(q, positions))


def torchtune_call() -> Callable[[], object]:
    """RotaryPositionalEmbeddings(dim=D) on [1, LENGTH, 1, D]."""
    import torch
    from torchtune.modules import RotaryPositionalEmbeddings

    rotary = RotaryPositionalEmbeddings(dim=D)
    x = torch.randn(1, LENGTH, 1, D)
    return lambda: rotary(x)


def rotary_embedding_torch_call() -> Callable[[], object]:
    """RotaryEmbedding(dim=D).rotate_queries_or_keys on [1, 1, LENGTH, D]."""
    import torch
    from rotary_embedding_torch import RotaryEmbedding

    rotary = RotaryEmbedding(dim=D)
    t = torch.randn(1, 1, LENGTH, D)
    return lambda: rotary.rotate_queries_or_keys(t)


#: Each library: the module that tells whether it is installed, the `check` target and its own call.
LIBRARIES: dict[str, tuple[str, str, Callable[[], Callable[[], object]]]] = {
    "transformers": (
        "transformers",
        "transformers.models.llama.modeling_llama:apply_rotary_pos_emb",
        transformers_call,
    ),
    "torchtune": (
        "torchtune",
        "torchtune.modules.position_embeddings:RotaryPositionalEmbeddings",
        torchtune_call,
    ),
    "rotary-embedding-torch": (
        "rotary_embedding_torch",
        "rotary_embedding_torch:RotaryEmbedding",
        rotary_embedding_torch_call,
    ),
}


def baseline_seconds(call: Callable[[], object], repeat: int = 50) -> float:
    """The least wall time of `repeat` calls, after one call that warms the library up (the least: other
    processes on the machine only ever add to it)."""
    call()
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def check_run(target: str) -> tuple[float, float, int]:
    """One `pe-verify check TARGET --family rope` as its own process: wall seconds, CPU seconds (its
    processes, the child that runs the target included) and exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "pe_verify.cli", "--quiet", "check", target, "--family", "rope"]
    status = subprocess.run(command, stdout=subprocess.DEVNULL, check=False).returncode
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", nargs="+", default=list(LIBRARIES), choices=list(LIBRARIES))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each check (default 3)")
    args = parser.parse_args()
    print(f"pe-verify check TARGET --family rope at default settings, median of {args.repeat} runs")
    print("library                  check s (median)   cpu s   baseline s      ratio   under 10 s   exit")
    for name in args.library:
        module, target, own_call = LIBRARIES[name]
        if importlib.util.find_spec(module) is None:
            print(f"{name:<24} not installed")
            continue
        base_s = baseline_seconds(own_call())
        runs = [check_run(target) for _ in range(args.repeat)]
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        statuses = sorted({run[2] for run in runs})
        print(
            f"{name:<24} {wall:16.2f} {cpu:7.2f} {base_s:12.5f} {wall / base_s:10.0f}   "
            f"{wall <= LIMIT_SECONDS!s:>10}   {','.join(map(str, statuses))}"
        )


if __name__ == "__main__":
    main()
