"""The record of `pe-verify model` as text and markdown, and the models page: the bundled models' positional
setups side by side with their findings, and one figure of their wavelengths against their contexts.

`bundled_records()` analyses every bundled config (`model_config.bundled_models`) at its documented context
without the transformers comparison, whose result would depend on what is installed: the page states instead
which transformers versions the test suite compares every bundled model with (`CROSS_CHECKED`, the versions
CI installs) and the differences explained so far (`EXPLAINED`). Everything printed is exact, certified or
computed at a stated precision and printed to fewer digits, so the page is the same on every machine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import mpmath
from matplotlib.figure import Figure

from pe_verify.properties.analyses.model_setup import SHOWN, analyse
from pe_verify.properties.encodings.model_config import bundled_models, read_config

from . import figures

PAGE = "models.md"
FIGURE = "model-wavelengths.png"
#: The transformers versions CI compares every bundled model with (tests/properties/test_models_cross.py).
CROSS_CHECKED = ("4.57.6", "5.25.0")
#: Differences between the suite and transformers that are understood, by bundled model: none so far.
EXPLAINED: dict[str, str] = {}


def _setup_line(record: dict) -> str:
    setup = record["setup"]
    scheme = record["scheme"]
    if scheme == "rope":
        scaling = setup["scaling"]
        kind = "unscaled" if scaling is None or scaling["kind"] == "none" else f"{scaling['kind']} scaling"
        if scaling is not None and scaling["kind"] != "none":
            kind += f" (factor {scaling['factor']:g}"
            kind += (
                f", original context {scaling['original_context']})" if "original_context" in scaling else ")"
            )
        rotated = f"{setup['rotary_dim']} of {setup['head_dim']} head dims rotated"
        base = setup["base"]
        shown = str(int(base)) if float(base).is_integer() else repr(base)
        return f"RoPE, {rotated}, base {shown}, {kind}"
    if scheme == "alibi":
        return f"ALiBi, {setup['heads']} heads"
    if scheme == "learned":
        return f"a learned table of {setup['max_position_embeddings']} positions"
    return "a positional scheme the suite does not know"


def _cross_line(record: dict) -> str:
    cross = record["cross_check"]
    if "skipped" in cross:
        return f"cross-check with transformers: skipped ({cross['skipped']})"
    differences = cross["differences"]
    line = f"cross-check with transformers {cross['transformers']}: "
    if "inv_freq" in cross:
        found = cross["inv_freq"]
        line += (
            f"inv_freq of {found['pairs']} pairs within {found['largest_relative_difference']} (relative; "
            f"tolerance {found['tolerance']}) of the suite's; "
        )
    line += f"{len(differences)} differences"
    for difference in differences:
        shown = ", ".join(f"{key} {value}" for key, value in difference.items() if key != "quantity")
        line += f"; {difference['quantity']}: {shown}"
    return line


def _stated(value: object) -> str:
    return "not stated" if value is None else str(value)


def _title(record: dict) -> str:
    bundled = record["bundled"]
    return record["config"] if bundled is None else f"{bundled['model']} ({bundled['repository']})"


def model_text(record: dict) -> str:
    """The record as the command prints it."""
    setup = record["setup"]
    lines = [_title(record), f"  {_setup_line(record)}"]
    lines.append(
        f"  contexts: max_position_embeddings {setup['max_position_embeddings']}, trained "
        f"{setup['trained_context']}, planned {setup['planned_context']}; dtype "
        f"{setup['dtype'] or 'not stated'}"
    )
    keys = record["keys"]
    lines.append(f"  keys used: {', '.join(keys['used']) or 'none'}")
    lines.append(f"  keys ignored: {', '.join(keys['ignored']) or 'none'}")
    for key, value in keys["defaults"].items():
        lines.append(f"  default taken: {key} = {value}")
    for problem in record["problems"]:
        lines.append(f"  problem: config key {problem['key']}: {problem['message']}")
    for finding in record["findings"]:
        lines.append(f"  finding [{finding['label']}]: {finding['message']}")
    for key, answer in record["answers"].items():
        lines.append(f"  - {key} [{answer['evidence']}]: {answer['summary']}")
    for key, reason in record["skipped"].items():
        lines.append(f"  - {key}: skipped ({reason})")
    lines.append(f"  {_cross_line(record)}")
    return "\n".join(lines) + "\n"


def _pair_table(record: dict) -> list[str]:
    rows = record["answers"]["frequencies"]["value"]
    lines = [
        "| pair | θ | θ′ | wavelength | turns (trained) | turns (planned) | regime | weight |",
        "|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        weight = row["weight"] if row["weight"] is not None else "—"
        lines.append(
            f"| {row['pair']} | {row['theta']} | {row['scaled_theta']} | {row['wavelength']} | "
            f"{row['turns_trained']} | {row['turns_planned']} | {row['regime']} | {weight} |"
        )
    return lines


def model_markdown(record: dict, level: int = 2, pairs: bool = True) -> str:
    """The record as a markdown section (`pairs`: with the table of every rotated pair, folded)."""
    hashes = "#" * level
    lines = [f"{hashes} {_title(record)}", ""]
    bundled = record["bundled"]
    if bundled is not None:
        lines += [
            f"Source: <{bundled['source']}>" + (f"; {bundled['note']}." if "note" in bundled else "."),
            "",
        ]
    setup = record["setup"]
    lines += [
        f"{_setup_line(record)}; max_position_embeddings {_stated(setup['max_position_embeddings'])}, "
        f"trained context {_stated(setup['trained_context'])}, "
        f"planned context {_stated(setup['planned_context'])}, "
        f"dtype {_stated(setup['dtype'])}.",
        "",
    ]
    keys = record["keys"]
    lines += [
        f"Keys used: {', '.join(f'`{k}`' for k in keys['used']) or 'none'}. Keys ignored: "
        f"{', '.join(f'`{k}`' for k in keys['ignored']) or 'none'}.",
        "",
    ]
    if record["problems"] or record["findings"]:
        lines += [f"- problem, `{p['key']}`: {p['message']}" for p in record["problems"]]
        lines += [f"- **{f['label']}**: {f['message']}" for f in record["findings"]]
        lines.append("")
    lines += ["| answer | evidence | what was found |", "|---|---|---|"]
    lines += [f"| {key} | {a['evidence']} | {a['summary']} |" for key, a in record["answers"].items()]
    lines += [f"| {key} | — | skipped: {reason} |" for key, reason in record["skipped"].items()]
    lines.append("")
    if pairs and "frequencies" in record["answers"]:
        lines += [
            "<details><summary>Every rotated pair</summary>",
            "",
            *_pair_table(record),
            "",
            "</details>",
            "",
        ]
    if "skipped" not in record["cross_check"] or record["cross_check"]["skipped"] != "not asked for":
        lines += [_cross_line(record), ""]
    return "\n".join(lines)


@functools.cache
def bundled_records() -> tuple[dict, ...]:
    """Every bundled model's record at its documented context, without the transformers comparison."""
    records = []
    for name, bundled in bundled_models().items():
        found = analyse(read_config(bundled.config), bundled.context)
        cited = {"model": bundled.model, "repository": bundled.repository, "source": bundled.source}
        if bundled.note:
            cited["note"] = bundled.note
        record = {"config": name, "bundled": cited, **found.as_json()}
        record["cross_check"] = {"skipped": "not asked for"}
        records.append(record)
    return tuple(records)


def _row(record: dict, slug: Callable[[str], str]) -> str:
    setup = record["setup"]
    labels = sorted({finding["label"] for finding in record["findings"]})
    findings = ", ".join(f"`{label}`" for label in labels) or "—"
    anchor = slug(_title(record))
    return (
        f"| [{record['bundled']['model']}](#{anchor}) | {_setup_line(record)} | "
        f"{setup['trained_context'] or '—'} | {setup['planned_context'] or '—'} | {setup['dtype'] or '—'} | "
        f"{findings} |"
    )


def wavelength_figure(records: tuple[dict, ...]) -> figures.Plot:
    """Each RoPE model's wavelengths 2π/θ′_i against the pair's place i/(d/2) in its head, on a log scale,
    with its trained and planned contexts marked."""
    rope = [r for r in records if "frequencies" in r["answers"]]
    series = [
        (r["bundled"]["model"], [float(row["wavelength"]) for row in r["answers"]["frequencies"]["value"]], r)
        for r in rope
    ]

    def build(figure: Figure) -> None:
        axes = figure.add_subplot()
        for index, (name, waves, record) in enumerate(series):
            color = f"C{index % 10}"
            places = [i / len(waves) for i in range(len(waves))]
            axes.semilogy(places, waves, ".-", color=color, markersize=3, linewidth=0.8, label=name)
            axes.axhline(record["setup"]["planned_context"], color=color, linestyle=":", linewidth=0.8)
        axes.set_xlabel("pair i / (rotated dims / 2)")
        axes.set_ylabel("wavelength 2π/θ′ (positions)")
        axes.set_title("Wavelengths of each model's rotated pairs; dotted: its planned context")
        axes.legend(fontsize=6, loc="upper left", ncols=2)

    longest = ", ".join(
        f"{name}: {mpmath.nstr(mpmath.mpf(record['answers']['frequencies']['value'][-1]['wavelength']), 6)}"
        for name, _, record in series
    )
    caption = (
        f"Wavelength 2π/θ′_i of every rotated pair of the {len(series)} RoPE models above, θ′ the scaling "
        "rule "
        f"evaluated at 30 significant digits (plotted from the {SHOWN}-digit values); a dotted line at each "
        "model's planned context: pairs above it turn less than once in the context. Longest wavelengths, "
        "to 6 "
        f"digits: {longest}."
    )
    return figures.plot(
        FIGURE, "Wavelengths of well-known models", caption, build, Path(__file__).read_bytes()
    )


def models_page(
    records: tuple[dict, ...], marker: str, plot: figures.Plot, figure_link: str, slug: Callable[[str], str]
) -> str:
    """The models page: `marker` its first line, `figure_link` where the figure is, `slug` the anchor of a
    heading."""
    lines = [marker, "", "# Well-known models' positional setups, checked", ""]
    lines += [
        f"The suite's answers for {len(records)} public models' published `config.json` values (the keys "
        "that bear on positions and heads, transcribed into the package from the file cited under each "
        "model, since nothing is downloaded), at the context each states or documents: "
        "`pe-verify model NAME` prints the same for one of them, `pe-verify model path/to/config.json` for "
        "any model, including a freshly downloaded copy of one of these. Every label is explained in the "
        "README's section on `pe-verify model`.",
        "",
        f"Cross-check: the test suite computes every bundled model's `inv_freq` and attention factor with "
        f"transformers' own functions, at versions {', '.join(CROSS_CHECKED)}, and compares them with the "
        "suite's within stated tolerances; differences explained so far: "
        + ("none." if not EXPLAINED else "; ".join(f"{k}: {v}" for k, v in EXPLAINED.items()) + "."),
        "",
        "| model | setup | trained context | planned context | dtype | findings |",
        "|---|---|---:|---:|---|---|",
        *(_row(record, slug) for record in records),
        "",
        f"![{plot.title}]({figure_link})",
        "",
        plot.caption,
        "",
    ]
    for record in records:
        lines.append(model_markdown(record, level=2))
    return "\n".join(lines).rstrip("\n") + "\n"
