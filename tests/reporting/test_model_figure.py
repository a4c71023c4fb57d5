"""The models page's wavelength figure: one panel per base, and models whose wavelengths lie on one curve
drawn as one line named after all of them, so that no line hides another; the figure is drawn at the page's
width, tall enough for its panels and their legends."""

from __future__ import annotations

import math

from pe_verify.reporting import figures
from pe_verify.reporting.models import Line, wavelength_figure, wavelength_panels


def _unscaled(base: float, d: int) -> list[float]:
    """2π·b^(2i/d) for the d/2 pairs, rounded to 10 significant digits as a model record gives them."""
    return [float(f"{2 * math.pi * base ** (2 * i / d):.10g}") for i in range(d // 2)]


def hidden_lines(panels: dict[float, list[Line]]) -> list[tuple[str, str]]:
    """Pairs of lines of one panel that draw the same points (one hides the other)."""
    hidden = []
    for lines in panels.values():
        for index, line in enumerate(lines):
            for other in lines[index + 1 :]:
                if line.waves == other.waves:
                    hidden.append((line.names[0], other.names[0]))
    return hidden


SERIES = [
    ("A", 10000.0, _unscaled(10000.0, 64), 2048),
    ("B", 10000.0, _unscaled(10000.0, 128), 4096),
    ("C", 10000.0, [w * (1 + 1e-6 * (i > 20)) for i, w in enumerate(_unscaled(10000.0, 128))], 8192),
    ("D", 500000.0, _unscaled(500000.0, 128), 131072),
    ("E", 10000.0, _unscaled(10000.0, 64), 2048),
]


def test_models_on_one_curve_share_one_line_and_each_base_has_its_panel() -> None:
    panels = wavelength_panels(SERIES)
    assert list(panels) == [10000.0, 500000.0]
    unscaled, scaled = panels[10000.0]
    assert unscaled.names == ["A", "B", "E"] and unscaled.unscaled and len(unscaled.waves) == 64
    assert unscaled.contexts == [2048, 4096, 2048]
    assert scaled.names == ["C"] and not scaled.unscaled
    assert [line.names for line in panels[500000.0]] == [["D"]]
    assert hidden_lines(panels) == []


def test_one_line_per_model_would_hide_lines() -> None:
    """The twin: every model its own line, as the figure drew them before, hides A's line under E's."""
    one_each = {10000.0: [Line([name], [context], waves, False) for name, _, waves, context in SERIES]}
    assert hidden_lines(one_each) == [("A", "E")]


def test_the_figure_is_the_page_s_width_and_tall_enough_for_its_panels() -> None:
    record = {
        "bundled": {"model": "A"},
        "setup": {"planned_context": 2048},
        "groups": [
            {
                "attention": {"reach": 2048},
                "position": {"base": 10000.0},
                "answers": {"frequencies": {"value": [{"wavelength": repr(w)} for w in SERIES[0][2]]}},
            }
        ],
    }
    plot = wavelength_figure((record,))
    assert "one panel per base b. A dotted line" in plot.caption and plot.caption.endswith(
        "digits: A: 47117.2."
    )
    png = plot.png
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (figures.SIZE[0] * figures.DPI, 360) and figures.is_ours(png)
