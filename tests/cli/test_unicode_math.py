"""`pe_verify.reporting.unicode_math`: the catalog's LaTeX as Unicode text for `show`. Every formula the
catalog holds (the claims' formal statements, the derivations' statements and steps, the math in their
hypotheses and justifications) renders with no LaTeX command left; the conversions read as written; `show`
prints Unicode, wrapped to a terminal's width, and `show --json` keeps the LaTeX."""

from __future__ import annotations

import json
import re

import pytest

from pe_verify import cli, terminal
from pe_verify.claims.catalog import all_claims
from pe_verify.proofs import all_derivations
from pe_verify.reporting.unicode_math import leftover_commands, unicode_markdown, unicode_math


def _catalog_math() -> set[str]:
    """Every LaTeX expression of the catalog: whole formulas and the `$…$` spans of its prose."""
    formulas = {item.formal for item in all_claims()}
    prose: list[str] = []
    for found in all_derivations():
        formulas.add(found.statement)
        prose += found.hypotheses
        for step in found.steps():
            formulas.add(step.claim)
            prose.append(step.justification)
    return formulas | {span for text in prose for span in re.findall(r"\$([^$]+)\$", text)}


def test_every_formula_of_the_catalog_renders_with_no_command_left() -> None:
    formulas = _catalog_math()
    assert len(formulas) > 1000
    left = {tex: leftover_commands(unicode_math(tex)) for tex in formulas}
    assert {tex: found for tex, found in left.items() if found} == {}


def test_a_command_it_does_not_know_is_left_as_written_and_found() -> None:
    assert unicode_math(r"\alpha + \unknownthing{x}") == r"α + \unknownthing x"
    assert leftover_commands(unicode_math(r"\alpha + \unknownthing{x}")) == [r"\unknownthing"]


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\omega_i = 10000^{-2i/d}", "ωᵢ = 10000^(−2i/d)"),
        (r"\frac{\ln 4}{\ln 32} \neq \frac{4 - 1}{32 - 1}", "(ln 4)/(ln 32) ≠ (4 − 1)/(32 − 1)"),
        (r"1 - \cos\frac{\theta}{2} = 2\sin^2\frac{\theta}{4}", "1 − cos(θ/2) = 2 sin²(θ/4)"),
        (r"a = 0.1\ln s + 1,\ \tfrac{d}{ds}a^2 > 0", "a = 0.1 ln s + 1, d/ds a² > 0"),
        (r"M_k^\top M_k = I_{8}", "Mₖᵀ Mₖ = I₈"),
        (r"\lVert q\rVert^2 = \sum_{i<K} \lVert q_i\rVert^2", "‖q‖² = ∑_(i<K) ‖qᵢ‖²"),
        (
            r"\begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega\end{pmatrix}",
            "(cos kω, sin kω; −sin kω, cos kω)",
        ),
        (r"\left[\begin{matrix}1 & 0\\0 & 0\end{matrix}\right]", "[1, 0; 0, 0]"),
        (
            r"\gamma(r) = \begin{cases}0 & r < \alpha\\ 1 & \text{otherwise}\end{cases}",
            "γ(r) = {0 if r < α; 1 otherwise}",
        ),
        (r"\frac{\sqrt[3]{10}}{1000} \in \overline{\mathbb{Q}}", "³√10/1000 ∈ ℚ̅"),
        (r"\underbrace{E_i^\top U_j}_{(a)}", "[Eᵢᵀ Uⱼ]₍ₐ₎"),
        (r"d \equiv 0, 4 \pmod 8 \iff 4 \mid d", "d ≡ 0, 4 (mod 8) ⟺ 4 ∣ d"),
        (r"a\quad b\qquad c", "a  b    c"),
        (r"\text{1-D and 2-D}\ x - y", "1-D and 2-D x − y"),
        (r"\operatorname{diag}_i B_i", "diagᵢ Bᵢ"),
        (r"\begin{gathered}a = b,\quad \\ c = d\end{gathered}", "a = b,\nc = d"),
    ],
)
def test_each_construction_reads_as_written(tex: str, text: str) -> None:
    assert unicode_math(tex) == text


def test_markdown_math_spans_are_converted_and_code_spans_kept() -> None:
    page = "1. $$\\alpha^2$$\n\n    by $\\beta_0$ (`x = $\\gamma$`) at 5 $"
    assert unicode_markdown(page) == "1. α²\n\n    by β₀ (`x = $\\gamma$`) at 5 $"


def test_show_prints_unicode_math_and_its_json_keeps_the_latex(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--quiet", "show", "D0.8", "--fresh"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "formal: PE(p+k) = Mₖ PE(p), Mₖ = diagᵢ (cos kωᵢ, sin kωᵢ; −sin kωᵢ, cos kωᵢ)" in out
    assert leftover_commands(out) == [] and "$$" not in out
    assert cli.main(["--quiet", "show", "D0.8", "--json", "--fresh"]) == cli.EXIT_OK
    record = json.loads(capsys.readouterr().out)["claim"]
    assert record["formal"].startswith(r"PE(p+k) = M_k\,PE(p)") and r"\begin{pmatrix}" in record["formal"]


def test_on_a_terminal_show_wraps_each_line_to_its_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(terminal, "terminal_width", lambda: 60)
    assert cli.main(["--quiet", "show", "D0.8", "--fresh"]) == cli.EXIT_OK
    wrapped = capsys.readouterr().out
    monkeypatch.setattr(terminal, "terminal_width", lambda: None)
    assert cli.main(["--quiet", "show", "D0.8", "--fresh"]) == cli.EXIT_OK
    plain = capsys.readouterr().out
    assert wrapped.split() == plain.split() and any(len(line) > 60 for line in plain.splitlines())
    assert all(len(line) <= 60 or " " not in line.strip() for line in wrapped.splitlines())
