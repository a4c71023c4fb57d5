"""Machine-checked derivations about positional encodings, one module per family."""

from __future__ import annotations

import importlib

from .derivation import Derivation, Step, VerificationResult, render_markdown

MODULES = (
    "trigonometry",
    "sinusoidal",
    "lipschitz",
    "rope",
    "attention",
    "alibi",
    "scaling",
    "relative",
    "random_scores",
    "uniqueness",
)

__all__ = ["Derivation", "Step", "VerificationResult", "all_derivations", "render_markdown"]


def all_derivations() -> tuple[Derivation, ...]:
    """Every derivation of every family module, in module order and then definition order."""
    found: list[Derivation] = []
    for name in MODULES:
        module = importlib.import_module(f".{name}", __name__)
        found += [value for value in vars(module).values() if isinstance(value, Derivation)]
    return tuple(found)
