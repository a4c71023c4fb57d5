"""Benchmark of the separation screen on torch (`pe-verify separation --backend torch`) against numpy.

The baseline, measured in the same run, is the same search with numpy's screen; both must give the same
minimum, argmin and certificate. On a machine without a GPU torch runs on its CPU; on a GPU this is the
benchmark to run when one is at hand.

What to expect on a GPU, from the operation counts (not measured here: this machine has none). At d = 512
the far range is screened offset by offset with low-rank float32 products of about 240–270 flops an offset,
so 2^40 offsets are about 3·10^14 flops: some 15 s at 20 TFLOP/s (float32, TF32 off). The products' results
come back to the host, about 4 bytes an offset (X̂ and Ŷ hold h + 1 rows for each leaf of 2h offsets), 4 TiB
for 2^40 offsets, some 3 minutes at 25 GB/s; the host's thresholding of those sums, about 1 ns an offset on
one core, some 20 minutes. One GPU with one host core would answer 2^40 in the order of 20–30 minutes,
bounded by the host's decisions, against about an hour on this machine's two cores.

    python benchmarks/separation_torch.py [--d 512] [--max-offset 2147483648] [--device cuda]
"""

from __future__ import annotations

import argparse
import time

from pe_verify.properties.analyses.separation import beyond_longest_wavelength, certified_separation
from pe_verify.properties.analyses.separation_torch import torch_screen
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d", type=int, default=512)
    parser.add_argument("--max-offset", type=int, default=2**31)
    parser.add_argument(
        "--device", default=None, help="a torch device (default: cuda when present, else cpu)"
    )
    args = parser.parse_args()
    encoding = Sinusoidal(args.d, "10000")
    first = beyond_longest_wavelength(encoding)
    screen = torch_screen(args.device)
    screen.failures(set())  # the device's checks and torch's start, outside the timing
    print(f"d = {args.d}, far range {first} ≤ k < {args.max_offset}; torch screen: {screen.name}")
    started = time.perf_counter()
    baseline = certified_separation(encoding, args.max_offset, first)
    numpy_seconds = time.perf_counter() - started
    print(f"numpy screen (baseline): {numpy_seconds:.1f} s, certified {baseline.certified}")
    started = time.perf_counter()
    found = certified_separation(encoding, args.max_offset, first, numerics=screen)
    torch_seconds = time.perf_counter() - started
    same = found.same_answer(baseline)
    print(f"torch screen: {torch_seconds:.1f} s, certified {found.certified}; same answer: {same}")
    print(f"ratio numpy / torch: {numpy_seconds / torch_seconds:.2f}")


if __name__ == "__main__":
    main()
