"""`pe_verify.reporting.display_math`: no display formula of the derivations page is wider than `WIDTH`
characters of Unicode text; a formula too wide is wrapped into `gathered` lines at its top-level spacing,
then its commas, then before its relations, never inside a group; one that fits is left alone."""

from __future__ import annotations

import re
from pathlib import Path

from pe_verify.reporting.derivations import PAGE
from pe_verify.reporting.display_math import WIDTH, display_width, wrapped, wrapped_displays

ROOT = Path(__file__).resolve().parents[2]


def too_wide(page: str, width: int = WIDTH) -> list[str]:
    """The display formulas (`$$…$$`) of a markdown page wider than `width`."""
    return [tex for tex in re.findall(r"\$\$(.+?)\$\$", page, re.DOTALL) if display_width(tex) > width]


def test_no_display_formula_of_the_derivations_page_is_too_wide() -> None:
    page = (ROOT / "reports" / PAGE).read_text("utf-8")
    assert "gathered" in page and too_wide(page) == []


def test_a_formula_too_wide_is_found_and_wrapped_at_its_spacing() -> None:
    facts = [rf"M_{{{k}}}^\top M_{{{k}}} = I" for k in range(12)]
    tex = r",\quad ".join(facts)
    page = f"1. $${tex}$$\n"
    assert too_wide(page) == [tex]  # the twin: the same page unwrapped
    fitted = wrapped_displays(page)
    assert too_wide(fitted) == [] and fitted.startswith(r"1. $$\begin{gathered}M_{0}^\top")
    lines = fitted.removeprefix(r"1. $$\begin{gathered}").removesuffix("\\end{gathered}$$\n").split(r" \\ ")
    assert len(lines) == 2 and lines[0].endswith(",") and r"\quad ".join(lines) == tex


def test_a_piece_still_too_wide_is_broken_after_commas_then_before_relations() -> None:
    sum_ = " + ".join(rf"\cos(p\,\omega_{{{i}}})" for i in range(6))
    tex = rf"\left({sum_}\right) = {sum_} = {sum_}"
    lines = wrapped(tex).removeprefix(r"\begin{gathered}").removesuffix(r"\end{gathered}").split(r" \\ ")
    assert lines[0] == rf"\left({sum_}\right)" and lines[1:] == [f"= {sum_}", f"= {sum_}"]
    assert all(display_width(line) <= WIDTH for line in lines)
    listed = ", ".join(rf"x_{{{i}}} = \omega_{{{i}}}^2" for i in range(14))
    assert r"\\ " in wrapped(listed) and display_width(wrapped(listed)) <= WIDTH


def test_what_fits_or_cannot_be_broken_is_left_alone() -> None:
    assert wrapped(r"\omega_i = 10000^{-2i/d}") == r"\omega_i = 10000^{-2i/d}"
    vector = "(" + ", ".join(["0, 1"] * 40) + ")"
    assert wrapped(vector) == vector and too_wide(f"$${vector}$$") == [vector]
