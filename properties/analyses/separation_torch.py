"""The certified separation search's float32 screen on torch (CUDA when present, CPU otherwise).

What the screen's error bound (`separation.LeafProducts.error`, `product_error`) assumes, restated for the
operations torch runs here:

* anchor factors ĉ, ŝ within η = ANCHOR_FACTOR_ERROR of cos 2πt, sin 2πt: torch computes the reduced angle
  2π(t − [t ≥ 1/2]) and its cos and sin in float64 on the device and rounds them to float32, within
  2^-24 (the rounding of a value in [−1, 1]) + 2^-30 (torch's float64 cos and sin, checked on the device
  at run time, as numpy's are) + 2^-50 (the angle), which is below η = 2^-23 + 2^-22 + 2^-50: the bound
  holds as written, with room;
* float32 matrix products that round to nearest with float32 accumulation, |fl(A·B) − A·B| ≤
  γ_inner(2^-24)·|A|·|B| in any order of summation: TF32 is switched off (cuBLAS and cuDNN) and the float32
  matmul precision set to "highest", and `separation.product_failure` checks the torch product against the
  float64 one on the device, at every shape the screen used, as it does numpy's BLAS.

A failed check leaves the answer uncertified with its reason, as with numpy. The products run on the device
and their results come back to the host, where the screen's decisions are made (so, on a GPU, the transfer
of X̂ and Ŷ, 8 bytes an offset, and the host's thresholding bound the speed, not the products).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .separation import ScreenNumerics, product_failure, turns_float

#: What torch's float64 cos and sin may err by on [−π, π] (as numpy's float64 ones, `trig_failure`).
TRIG64_ERROR = 2.0**-30


def _device(name: str | None):
    import torch

    if name is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def _probes() -> np.ndarray:
    """float64 angles in [−π, π]: a grid of 2^16 and the neighbours of multiples of π/4."""
    grid = np.linspace(-np.pi, np.pi, 2**16)
    hard = np.pi * np.array([0, 0.25, 0.5, 0.75, -0.25, -0.5, -0.75])
    near = np.concatenate([x + np.arange(-16, 17) * np.spacing(x if x else 1.0) for x in hard])
    return np.concatenate([grid, near, np.nextafter([np.pi, -np.pi], 0)])


@functools.cache
def torch_screen(device: str | None = None) -> ScreenNumerics:
    """The screen's numerics on torch's `device` (default: CUDA when available, else the CPU), with TF32
    off; its checks run on that device (`failures`)."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    where = _device(device)
    constants: dict[int, tuple[np.ndarray, torch.Tensor]] = {}

    def on_device(array: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array)).to(where)

    def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # The left factor is a matrix of the leaf products (constant for the search): sent once.
        kept = constants.get(id(a))
        if kept is None or kept[0] is not a:
            kept = constants[id(a)] = (a, on_device(a))
        return (kept[1] @ on_device(b)).cpu().numpy()

    def anchor_factors(hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        turns = on_device(turns_float(hi))
        angle = (2 * math.pi) * (turns - (turns >= 0.5).to(torch.float64))
        cos, sin = torch.cos(angle).to(torch.float32), torch.sin(angle).to(torch.float32)
        return cos.T.contiguous().cpu().numpy(), sin.T.contiguous().cpu().numpy()

    def trig64_failure() -> str | None:
        angle = _probes()
        values = on_device(angle)
        for name, function, reference in (("cos", torch.cos, math.cos), ("sin", torch.sin, math.sin)):
            exact = np.array([reference(x) for x in angle.tolist()])
            error = float(np.max(np.abs(function(values).cpu().numpy() - exact)))
            if not error <= TRIG64_ERROR - 2.0**-50:
                beyond = f"beyond {TRIG64_ERROR:.3g}"
                return f"torch's float64 {name} on {where} errs by {error:.3g} on [−π, π], {beyond}"
        return None

    checked: list[str | None] = []

    def failures(shapes: set[tuple[int, int]]) -> tuple[str, ...]:
        if not checked:
            checked.append(trig64_failure())
        found = [checked[0]] + [product_failure(product, rows, inner) for rows, inner in sorted(shapes)]
        return tuple(failure for failure in found if failure is not None)

    return ScreenNumerics(f"torch ({where})", anchor_factors, product, failures)
