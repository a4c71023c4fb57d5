"""Every derivation has a twin: a test marked `twin(<derivation id>, …)` that feeds the derivation, or the
steps it is built from, a deliberately broken input and sees it fail.

The marks are read from the test files' source (`ast`), so the rule holds whatever a run selects. The
battery's properties are held to the same rule by the registry (`tests/properties/test_battery_registry.py`:
each registered property has a broken twin in its family's test data that must fail it).
`UNTWINNED` names the derivations still waiting for a twin: a new derivation must come with one, and a
derivation leaves the list as soon as a test declares its twin.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from pe_verify.claims.catalog import all_derivations

TESTS = Path(__file__).resolve().parents[1]

#: Derivations whose steps no test yet breaks on purpose (each is verified on the correct input only).
UNTWINNED = frozenset(
    {
        "alibi.slopes_power_of_two",
        "alibi.softmax_ratio",
        "attention.causal_mask_breaks_equivariance",
        "rope.mixed_layouts_by_dimension",
        "scaling.dynamic_ntk",
        "scaling.linear",
        "scaling.llama3",
        "scaling.longrope",
        "scaling.pi_bound_ratio",
        "scaling.pi_midpoint_error",
        "scaling.yarn_paper_ramp",
        "sinusoidal.position_term_not_relative",
        "sinusoidal.sine_only_origin",
        "trigonometry.angle_addition",
        "uniqueness.one_coordinate",
        "uniqueness.pi_side_condition",
        "uniqueness.ratio_argument",
    }
)


def _is_twin_mark(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.mark.twin"


def declared_twins(sources: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Derivation id → the tests (`file::name`) declaring themselves its twin, from (file, source) pairs."""
    found: dict[str, list[str]] = {}
    for name, source in sources:
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for mark in filter(_is_twin_mark, node.decorator_list):
                for argument in mark.args:
                    if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
                        raise ValueError(
                            f"{name}::{node.name}: twin() takes derivation ids as string literals"
                        )
                    found.setdefault(argument.value, []).append(f"{name}::{node.name}")
    return found


def twin_gaps(
    ids: Iterable[str], twins: dict[str, list[str]], untwinned: frozenset[str]
) -> dict[str, list[str]]:
    """What breaks the rule: derivations with neither a twin nor a place in `untwinned`, listed ones that
    have a twin now, listed ones that are no derivation, and twins that name no derivation."""
    known = set(ids)
    return {
        "without a twin": sorted(known - set(twins) - untwinned),
        "listed as untwinned but twinned": sorted(untwinned & set(twins)),
        "listed as untwinned but no derivation": sorted(untwinned - known),
        "twin of no derivation": sorted(set(twins) - known),
    }


def _test_sources() -> list[tuple[str, str]]:
    return [
        (path.relative_to(TESTS).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(TESTS.rglob("test_*.py"))
    ]


def test_every_derivation_has_a_twin_or_waits_for_one_by_name() -> None:
    gaps = twin_gaps((item.id for item in all_derivations()), declared_twins(_test_sources()), UNTWINNED)
    assert not any(gaps.values()), {reason: ids for reason, ids in gaps.items() if ids}


def test_a_derivation_without_a_twin_is_named() -> None:
    source = (
        "import pytest\n"
        "@pytest.mark.twin('a.one')\n"
        "def test_one_broken(): ...\n"
        "@pytest.mark.slow\n"
        "def test_two(): ...\n"
    )
    twins = declared_twins([("test_x.py", source)])
    assert twins == {"a.one": ["test_x.py::test_one_broken"]}
    gaps = twin_gaps(["a.one", "a.two"], twins, frozenset())
    assert gaps["without a twin"] == ["a.two"]
    assert twin_gaps(["a.one", "a.two"], twins, frozenset({"a.two"}))["without a twin"] == []
    assert twin_gaps(["a.one"], twins, frozenset({"a.one"}))["listed as untwinned but twinned"] == ["a.one"]
    assert twin_gaps(["a.two"], twins, frozenset({"a.two"}))["twin of no derivation"] == ["a.one"]
