"""Catalog entries only choose checks and explain: no module of entries under claims/ runs a SymPy
derivation step of its own (simplify, solve, expand, differentiate, integrate, build a matrix) — those live
in proofs/ as Derivations that `pe-verify proofs` lists — and no entry runs a Derivation itself: it cites one
through `from_derivation`, the call the catalog's link check reads."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pe_verify.claims import catalog

CLAIMS = Path(__file__).resolve().parents[2] / "claims"

#: SymPy functions that do mathematics (as opposed to building or printing a number).
DERIVING = frozenset(
    {
        "simplify",
        "solve",
        "solveset",
        "expand",
        "expand_trig",
        "diff",
        "integrate",
        "limit",
        "Matrix",
        "MatrixSymbol",
        "Sum",
        "factor",
        "nsolve",
        "trigsimp",
    }
)


def sympy_calls(source: str) -> list[tuple[int, str]]:
    """(line, name) of every `sp.<name>(…)` or `sympy.<name>(…)` call in `source` named in `DERIVING`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in ("sp", "sympy") and node.func.attr in DERIVING:
                found.append((node.lineno, node.func.attr))
            elif node.func.attr == "verify":
                found.append((node.lineno, "verify"))
    return found


@pytest.mark.parametrize("name", catalog.MODULES)
def test_entry_modules_derive_nothing_themselves(name: str) -> None:
    source = (CLAIMS / f"{name}.py").read_text(encoding="utf-8")
    assert sympy_calls(source) == [], f"claims/{name}.py derives in place; write a Derivation in proofs/"


def test_a_derivation_written_inside_an_entry_is_caught() -> None:
    source = "import sympy as sp\n\ndef d9_9():\n    return sp.simplify(sp.sin(x) ** 2 + sp.cos(x) ** 2)\n"
    assert sympy_calls(source) == [(4, "simplify")]
    assert sympy_calls("def d9_9():\n    return derivation_object.verify()\n") == [(2, "verify")]
    assert sympy_calls("import sympy as sp\nvalue = sp.Rational(1, 2)\nprint(sp.latex(value))\n") == []
