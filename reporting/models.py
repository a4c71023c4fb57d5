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
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mpmath
from matplotlib.figure import Figure

from pe_verify.properties.analyses.model_setup import SHOWN, analyse
from pe_verify.properties.analyses.runtime_divergence import runtimes_record
from pe_verify.properties.encodings.model_config import bundled_models, read_config
from pe_verify.properties.encodings.rope_rules import RULES

from . import figures
from .markdown import cell

PAGE = "models.md"
FIGURE = "model-wavelengths.png"
#: The transformers versions CI compares every bundled model with (tests/properties/test_models_cross.py).
CROSS_CHECKED = ("4.57.6", "5.25.0")
#: Differences between the suite and transformers that are understood, by bundled model: none so far.
EXPLAINED: dict[str, str] = {}
#: Bundled models whose model type came to transformers after the oldest version CI compares with: there the
#: comparison could not run (the test suite checks that it says so, and that it agrees at the newer one).
NEWER_THAN: dict[str, str] = {
    "gemma-4-31b-it": "5.0",
    "ministral-3-3b-instruct-2512": "5.0",
}


def record_findings(record: dict) -> list[dict]:
    """Every finding of a record: the model's, then each layer group's (a finding shared by groups once)."""
    found: list[dict] = []
    runtimes = [f for group in record.get("runtimes", {}).get("groups", []) for f in group["findings"]]
    for finding in (
        *record["findings"],
        *(f for group in record["groups"] for f in group["findings"]),
        *runtimes,
    ):
        if finding not in found:
            found.append(finding)
    return found


def layer_ranges(layers: list[int]) -> str:
    """Layer indices as ranges: ``0–4, 6–10, 12``."""
    runs: list[list[int]] = []
    for i in layers:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "not usable" if value is None else str(value)


def position_line(group: dict) -> str:
    """One group's positional rule in words."""
    position = group["position"]
    scheme = position["scheme"]
    if scheme == "rope":
        scaling = position["scaling"]
        if scaling is None:
            kind = "scaling not usable" if position["rope_type"] else "unscaled"
            if position["rope_type"] not in (None, "default", "mrope") and scaling is None:
                kind = f"rope_type {position['rope_type']!r} (not computed)"
        elif scaling["kind"] == "none":
            kind = "unscaled"
        else:
            kind = f"{scaling['kind']} scaling (factor {scaling['factor']:g}"
            kind += (
                f", original context {scaling['original_context']})" if "original_context" in scaling else ")"
            )
        width = position["qk_head_dim"] or position["head_dim"]
        rotated = (
            f"{position['rotary_dim']} of {width} head dims rotated"
            if position["rotary_dim"] is not None
            else f"a head of {_number(width)} dims"
        )
        layout = "interleaved pairs" if position["layout"] == "interleaved" else "half-split pairs"
        line = f"RoPE, {rotated} ({layout}), base {_number(position['base'])}, {kind}"
        if position["mrope_section"]:
            sections = " + ".join(map(str, position["mrope_section"]))
            line += f", M-RoPE sections {sections} pairs" + (
                " interleaved" if position["mrope_interleaved"] else ""
            )
        return line
    if scheme == "alibi":
        return f"ALiBi, {_number(position['heads'])} heads"
    if scheme == "learned":
        return "a learned table of absolute positions"
    if scheme == "relative":
        buckets, distance = position.get("num_buckets"), position.get("max_distance")
        return f"T5 relative buckets ({buckets}, max distance {distance})"
    if scheme == "nope":
        return "no positional encoding (NoPE)"
    if scheme == "none":
        return "no positions (not attention over positions)"
    return "a positional scheme the suite does not know"


def group_line(group: dict, ranges: bool = True) -> str:
    """A group's layers (as ranges unless not `ranges`: their count alone), rule and window in one line."""
    layers = group["layers"]
    where = group["layer_type"]
    if layers:
        where += f" ×{len(layers)}" + (f" (layers {layer_ranges(layers)})" if ranges else "")
    attention = group["attention"]
    if attention["window"] and attention["bidirectional"]:
        window = f"a window of ±{attention['window'] // 2} (bidirectional)"
    elif attention["window"]:
        window = f"sliding window {attention['window']}"
    else:
        window = f"chunks of {attention['chunk']}" if attention["chunk"] else "full context"
    line = f"{where}: {position_line(group)}; {window}"
    if group["query_scaling"]:
        line += f"; queries scaled by {group['query_scaling']['rule']}"
    return line


def _setup_line(record: dict) -> str:
    """The model's groups in one line, each with its count of layers (the models page's table)."""
    return "; ".join(group_line(group, ranges=False) for group in record["groups"])


def _cross_line(record: dict) -> str:
    cross = record["cross_check"]
    if "skipped" in cross:
        return f"cross-check with transformers: skipped ({cross['skipped']})"
    line = f"cross-check with transformers {cross['transformers']}: "
    parts = []
    for entry in cross["layer_types"]:
        part = f"{entry['layer_type']}: {entry['outcome']}"
        if "inv_freq" in entry:
            found = entry["inv_freq"]
            part += (
                f" (inv_freq of {found['pairs']} pairs within {found['largest_relative_difference']} "
                f"relative; tolerance {found['tolerance']})"
            )
        for difference in entry.get("differences", []):
            shown = ", ".join(f"{key} {value}" for key, value in difference.items() if key != "quantity")
            part += f"; {difference['quantity']}: {shown}"
        if "reason" in entry:
            part += f" ({entry['reason']})"
        parts.append(part)
    return line + "; ".join(parts)


def _stated(value: object) -> str:
    if isinstance(value, list):
        return " and ".join(map(str, value))
    return "not stated" if value is None else str(value)


def _title(record: dict) -> str:
    bundled = record["bundled"]
    return record["config"] if bundled is None else f"{bundled['model']} ({bundled['repository']})"


def _finding_line(finding: dict) -> str:
    return f"[{finding['severity']}] {finding['label']} ({finding['concerns']}): {finding['message']}"


def _model_line(record: dict) -> str:
    setup = record["setup"]
    nested = f" (read from {setup['nested']})" if setup["nested"] else ""
    layers = f"{setup['layers']} layers" if setup["layers"] else "layer count not stated"
    return (
        f"model_type {record['model_type']}{nested}; {layers}; max_position_embeddings "
        f"{_stated(setup['max_position_embeddings'])}, trained {_stated(setup['trained_context'])}, planned "
        f"{_stated(setup['planned_context'])}; dtype {setup['dtype'] or 'not stated'}"
    )


def gguf_lines(record: dict) -> list[str]:
    """What a record read from a GGUF file, or audited against one, says of the file."""
    gguf = record.get("gguf")
    if gguf is None:
        return []
    how = "read from GGUF" if gguf["read_from"] == "gguf" else "conversion audited against GGUF"
    lines = [f"{how}: {gguf['path']} (architecture {gguf['architecture']}, version {gguf['version']})"]
    if gguf["tensors"]:
        lines.append(f"GGUF tensors read: {', '.join(gguf['tensors'])}")
    if gguf["absent"]:
        lines.append(f"GGUF keys absent (llama.cpp's default taken): {', '.join(gguf['absent'])}")
    return lines


def model_text(record: dict) -> str:
    """The record as the command prints it."""
    lines = [_title(record), f"  {_model_line(record)}", "  layer groups:"]
    lines += [f"    {group_line(group)}" for group in record["groups"]]
    keys = record["keys"]
    lines += [f"  {line}" for line in gguf_lines(record)]
    lines.append(f"  keys used: {', '.join(keys['used']) or 'none'}")
    lines.append(f"  keys ignored: {', '.join(keys['ignored']) or 'none'}")
    for key, value in keys["defaults"].items():
        lines.append(f"  default taken: {key} = {value}")
    for problem in record["problems"]:
        lines.append(f"  problem: config key {problem['key']}: {problem['message']}")
    for finding in record["findings"]:
        lines.append(f"  finding {_finding_line(finding)}")
    several = len(record["groups"]) > 1
    for group in record["groups"]:
        indent = "    " if several else "  "
        if several:
            lines.append(f"  {group['layer_type']} layers:")
        for finding in group["findings"]:
            lines.append(f"{indent}finding {_finding_line(finding)}")
        for key, answer in group["answers"].items():
            lines.append(f"{indent}- {key} [{answer['evidence']}]: {answer['summary']}")
        for key, reason in group["skipped"].items():
            lines.append(f"{indent}- {key}: skipped ({reason})")
    lines.append(f"  {_cross_line(record)}")
    lines += _runtime_lines(record)
    return "\n".join(lines) + "\n"


#: The quantities a runtimes table shows, in order, with their column titles.
RUNTIME_COLUMNS = {
    "base": "base",
    "rotary_dim": "rotated dims",
    "scaling": "scaling",
    "cos_sin_factor": "factor on cos, sin",
    "softmax_factor": "factor on softmax scale",
    "original_context": "original context L₀",
    "longrope_factors": "LongRoPE factors at the context",
    "still_pairs": "pairs that do not turn (text)",
    "truncate": "YaRN truncate",
    "dynamic_length": "dynamic NTK length",
}


def _runtime_lines(record: dict) -> list[str]:
    """The runtimes comparison as text lines (none when it was not asked for)."""
    runtimes = record.get("runtimes", {"skipped": "not asked for"})
    if runtimes.get("skipped") == "not asked for":
        return []
    lines = [f"  runtimes, against {runtimes['reference']} (tolerance {runtimes['tolerance']}):"]
    if "skipped" in runtimes:
        return [*lines, f"    skipped ({runtimes['skipped']})"]
    for group in runtimes["groups"]:
        rows = list(group["table"].values())[1:]  # the reference's row first
        unread = {row["base"] for row in rows if row.get("base", "").startswith("its own code")}
        if rows and len(unread) == 1 and all(row.get("base") in unread for row in rows):
            lines.append(f"    {group['layer_type']} layers: not compared ({unread.pop()})")
            continue
        lines.append(f"    {group['layer_type']} layers: {len(group['findings'])} divergences")
        for finding in group["findings"]:
            lines.append(f"      finding {_finding_line(finding)}")
    return lines


def runtime_table(group: dict) -> list[str]:
    """One group's runtimes as a markdown table: a row per profile, a column per quantity any row shows;
    a cell that departs from the reference's row is bold."""
    table = group["table"]
    columns = [key for key in RUNTIME_COLUMNS if any(key in row for row in table.values())]
    reference = next(iter(table.values()))
    lines = [
        "| runtime | " + " | ".join(RUNTIME_COLUMNS[key] for key in columns) + " | first offset differing |",
        "|---|" + "---|" * len(columns) + "---:|",
    ]
    firsts = {
        f["profile"]: f["first_offset"] if f["text_tokens"] else "image and video tokens only"
        for f in group["findings"]
    }
    same = [name for name, row in list(table.items())[1:] if row == reference and name not in firsts]
    for name, row in table.items():
        if name in same:
            continue
        cells = []
        for key in columns:
            value = row.get(key, "—")
            cells.append(f"**{cell(value)}**" if value != reference.get(key, "—") else cell(value))
        first = firsts.get(name)
        shown = "—" if name not in firsts else ("beyond the context" if first is None else str(first))
        lines.append(f"| {cell(name)} | " + " | ".join(cells) + f" | {shown} |")
    if same:
        lines += ["", f"Computing the same as the reference: {', '.join(same)}."]
    return lines


def _pair_table(group: dict) -> list[str]:
    rows = group["answers"]["frequencies"]["value"]
    lines = [
        "| pair | θ | θ′ | wavelength | turns (trained) | turns (planned) | regime | weight |",
        "|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        weight = row["weight"] if row["weight"] is not None else "—"
        trained = row["turns_trained"] if row["turns_trained"] is not None else "—"
        lines.append(
            f"| {row['pair']} | {row['theta']} | {row['scaled_theta']} | {row['wavelength']} | "
            f"{trained} | {row['turns_planned']} | {row['regime']} | {weight} |"
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
    lines += [_model_line(record) + ".", ""]
    lines += ["| layers | positions and window |", "|---|---|"]
    for group in record["groups"]:
        layers = group["layers"]
        where = (
            f"{group['layer_type']} ×{len(layers)} ({layer_ranges(layers)})"
            if layers
            else group["layer_type"]
        )
        lines.append(f"| {cell(where)} | {cell(group_line(group).split(': ', 1)[1])} |")
    lines.append("")
    keys = record["keys"]
    lines += [
        f"Keys used: {', '.join(f'`{k}`' for k in keys['used']) or 'none'}. Keys ignored: "
        f"{', '.join(f'`{k}`' for k in keys['ignored']) or 'none'}.",
        "",
    ]
    if gguf_lines(record):
        lines += [*(f"{line[0].upper()}{line[1:]}." for line in gguf_lines(record)), ""]
    findings = record_findings(record)
    if record["problems"] or findings:
        lines += [f"- problem, `{p['key']}`: {p['message']}" for p in record["problems"]]
        lines += [f"- **{f['label']}** ({f['severity']}; {f['concerns']}): {f['message']}" for f in findings]
        lines.append("")
    several = len(record["groups"]) > 1
    lines += [
        f"| {'layers | ' if several else ''}answer | evidence | what was found |",
        f"|{'---|' if several else ''}---|---|---|",
    ]
    for group in record["groups"]:
        first = f"{cell(group['layer_type'])} | " if several else ""
        lines += [
            f"| {first}{key} | {a['evidence']} | {cell(a['summary'])} |"
            for key, a in group["answers"].items()
        ]
        lines += [
            f"| {first}{key} | — | skipped: {cell(reason)} |" for key, reason in group["skipped"].items()
        ]
    lines.append("")
    if pairs:
        for group in record["groups"]:
            if "frequencies" in group["answers"]:
                title = f"Every rotated pair ({group['layer_type']})" if several else "Every rotated pair"
                lines += [
                    f"<details><summary>{title}</summary>",
                    "",
                    *_pair_table(group),
                    "",
                    "</details>",
                    "",
                ]
    if "skipped" not in record["cross_check"] or record["cross_check"]["skipped"] != "not asked for":
        lines += [_cross_line(record), ""]
    runtimes = record.get("runtimes", {"skipped": "not asked for"})
    if "skipped" not in runtimes:
        for group in runtimes["groups"]:
            title = f" ({group['layer_type']})" if several else ""
            lines += [
                f"Runtimes{title}, against {runtimes['reference']}: a bold cell departs from it; the last "
                f"column is the first offset at which a unit q, k's score differs by more than 2^-8 "
                "(— : none differs).",
                "",
                *runtime_table(group),
                "",
            ]
    return "\n".join(lines)


@functools.cache
def bundled_records() -> tuple[dict, ...]:
    """Every bundled model's record at its documented context, with every runtime profile's reading and
    without the transformers comparison."""
    records = []
    for name, bundled in bundled_models().items():
        found = analyse(read_config(bundled.config), bundled.context)
        cited = {"model": bundled.model, "repository": bundled.repository, "source": bundled.source}
        if bundled.note:
            cited["note"] = bundled.note
        record = {"config": name, "bundled": cited, **found.as_json()}
        record["cross_check"] = {"skipped": "not asked for"}
        record["runtimes"] = runtimes_record(found, bundled.config)
        records.append(record)
    return tuple(records)


def _row(record: dict, slug: Callable[[str], str]) -> str:
    setup = record["setup"]
    labels = sorted({f["label"] for f in record_findings(record) if f["label"] != "runtime-divergence"})
    findings = ", ".join(f"`{label}`" for label in labels) or "—"
    anchor = slug(_title(record))
    return (
        f"| [{record['bundled']['model']}](#{anchor}) | {_setup_line(record)} | "
        f"{_stated(setup['trained_context'])} | {setup['planned_context'] or '—'} | "
        f"{setup['dtype'] or '—'} | {findings} |"
    )


def widest_rope_group(record: dict) -> dict | None:
    """The RoPE group with frequencies whose queries see the most positions (the first such), or None."""
    groups = [g for g in record["groups"] if "frequencies" in g["answers"]]
    return max(groups, key=lambda g: g["attention"]["reach"] or 0, default=None)


#: How close (relative) every wavelength of a series must be to 2π·b^(2i/d) for the series to be drawn as
#: the unscaled curve of base b: the record gives wavelengths to `SHOWN` significant digits.
UNSCALED_TOLERANCE = 10.0 ** (1 - SHOWN)
#: Characters of a legend line of the model figure, wrapped beyond (a panel is half the figure wide), and
#: the height in inches of a row of its panels with their legends.
LABEL_WIDTH = 60
PANEL_HEIGHT = 3.6


@dataclass
class Line:
    """One line of the model figure: the models it stands for, their planned contexts, the wavelengths it
    draws (the longest series of them) and whether it is the unscaled curve 2π·b^(2i/d) of its base."""

    names: list[str]
    contexts: list[int]
    waves: list[float]
    unscaled: bool


def wavelength_series(records: tuple[dict, ...]) -> list[tuple[str, float, list[float], int]]:
    """(model, base, wavelengths 2π/θ′_i, planned context) of each RoPE model, from its widest RoPE group."""
    series = []
    for record in records:
        group = widest_rope_group(record)
        if group is not None:
            waves = [float(row["wavelength"]) for row in group["answers"]["frequencies"]["value"]]
            base = float(group["position"]["base"])
            series.append((record["bundled"]["model"], base, waves, record["setup"]["planned_context"]))
    return series


def _unscaled(base: float, waves: list[float]) -> bool:
    """Whether every wavelength lies on the unscaled curve 2π·b^(2i/d) of the base, within
    `UNSCALED_TOLERANCE` (relative)."""
    places = [i / len(waves) for i in range(len(waves))]
    unscaled = [2 * mpmath.pi * mpmath.mpf(base) ** x for x in places]
    return all(abs(w - u) <= UNSCALED_TOLERANCE * u for w, u in zip(waves, unscaled, strict=True))


def wavelength_panels(series: list[tuple[str, float, list[float], int]]) -> dict[float, list[Line]]:
    """The model figure's panels, base → lines in order of first model: models of one base whose wavelengths
    lie on one curve (the unscaled one, whatever d, or the very same values) share one line."""
    panels: dict[float, dict[object, Line]] = {}
    for name, base, waves, context in series:
        unscaled = _unscaled(base, waves)
        key = "unscaled" if unscaled else tuple(waves)
        line = panels.setdefault(base, {}).setdefault(key, Line([], [], waves, unscaled))
        line.names.append(name)
        line.contexts.append(context)
        line.waves = max(line.waves, waves, key=len)
    return {base: list(panels[base].values()) for base in sorted(panels)}


def wavelength_figure(records: tuple[dict, ...]) -> figures.Plot:
    """Each RoPE model's wavelengths 2π/θ′_i against the pair's place i/(d/2) in its head, on a log scale,
    one panel per base b, with its planned context marked; models whose wavelengths lie on one curve share
    one line, labelled with every name (`wavelength_panels`)."""
    series = wavelength_series(records)
    panels = wavelength_panels(series)
    bases = list(panels)
    columns = 2
    rows = -(-len(bases) // columns)

    def build(figure: Figure) -> None:
        figure.set_size_inches(figures.SIZE[0], PANEL_HEIGHT * rows)  # the page's width, a row per two bases
        grid = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
        for axes, base in zip(grid.flat, bases, strict=False):
            for index, line in enumerate(panels[base]):
                color = f"C{index % 10}"
                places = [i / len(line.waves) for i in range(len(line.waves))]
                label = ", ".join(line.names) + (" (unscaled)" if line.unscaled else "")
                label = textwrap.fill(label, LABEL_WIDTH, subsequent_indent="  ")
                axes.semilogy(places, line.waves, ".-", color=color, markersize=3, linewidth=1, label=label)
                for context in sorted(set(line.contexts)):
                    axes.axhline(context, color=color, linestyle=":", linewidth=1)
            shown = f"{int(base):,}" if base.is_integer() else f"{base:g}"
            axes.legend(
                title=f"base {shown}",
                fontsize=8,
                title_fontsize=9,
                loc="lower left",
                bbox_to_anchor=(0.0, 1.0),
                handlelength=1.5,
                frameon=False,
            )
            axes.grid(True, which="major", linewidth=0.3)
        for axes in grid.flat[len(bases) :]:
            axes.set_visible(False)
        for axes in grid[-1]:
            axes.set_xlabel("pair i / (rotated dims / 2)")
        for axes in grid[:, 0]:
            axes.set_ylabel("wavelength 2π/θ′")
        figure.suptitle(
            "Wavelengths of each model's rotated pairs, one panel per base; dotted: planned context"
        )

    longest = ", ".join(
        f"{name}: {mpmath.nstr(mpmath.mpf(repr(waves[-1])), 6)}" for name, _, waves, _ in series
    )
    shared = [", ".join(line.names) for lines in panels.values() for line in lines if len(line.names) > 1]
    together = (
        "; models whose wavelengths all lie on one curve share one line (unscaled: every wavelength within "
        f"{UNSCALED_TOLERANCE:.0e} of 2π·b^(2i/d)): {'; '.join(shared)}"
        if shared
        else ""
    )
    caption = (
        f"Wavelength 2π/θ′_i of every rotated pair of the {len(series)} RoPE models above (of the layers "
        "that see the most positions, where a model's groups differ), θ′ the scaling rule "
        f"evaluated at 30 significant digits (plotted from the {SHOWN}-digit values), one panel per base b"
        f"{together}. A dotted line at each model's planned context: pairs above it turn less than once in "
        f"the context. Longest wavelengths, to 6 digits: {longest}."
    )
    return figures.plot(
        FIGURE, "Wavelengths of well-known models", caption, build, Path(__file__).read_bytes()
    )


def rules_table() -> list[str]:
    """The RoPE rules the audit knows (`rope_rules.RULES`), one row each."""
    lines = [
        "## The RoPE rules the audit reads",
        "",
        "| rule | `rope_type` | keys of its block | what it computes | transformers |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES:
        spellings = ", ".join(f"`{name}`" for name in rule.spellings) or "chosen by a model type's key"
        keys = (
            ", ".join(f"`{key.name}`" + ("" if key.required else " (optional)") for key in rule.keys) or "—"
        )
        transformers = f"`{rule.transformers}`" if rule.transformers else "the model's own default"
        lines.append(f"| {rule.kind} | {spellings} | {keys} | {rule.description} | {transformers} |")
    return [*lines, ""]


def runtimes_section(records: tuple[dict, ...]) -> list[str]:
    """The models page's runtimes: every profile (where its source was read, whether a test runs its real
    code), and per bundled model and RoPE layer group the profiles that compute its scores differently."""
    profiles = records[0]["runtimes"]["profiles"]
    lines = [
        "## One config, several runtimes",
        "",
        "What each runtime computes from the same `config.json` (`pe-verify model NAME --runtimes`), against "
        f"{records[0]['runtimes']['reference']}, whose reading the audit follows. A profile lists where a "
        "runtime at a version range departs from it, each departure read from the runtime's own source "
        "(file, function and version: `pe-verify model --list-runtimes`, and "
        "`properties/encodings/runtimes.py`). A divergence is named with the first offset at which the "
        f"score of unit q, k moves by more than {records[0]['runtimes']['tolerance'].split(' on ')[0]}.",
        "",
        "| profile | runtime | versions | source read at | tested against real code |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{p['name']}` | {cell(p['runtime'])} | {cell(p['versions'])} | {cell(p['read_at'])} | "
        f"{cell(p['tested']) if p['tested'] else 'no: from source only'} |"
        for p in profiles
    ]
    lines += [
        "",
        "How each runtime computes the numbers, at the version read (the reference first):",
        "",
        "| runtime | inv_freq | positions | cos and sin | pairs | keys it does not read | read in |",
        "|---|---|---|---|---|---|---|",
    ]
    seen: list[dict] = []
    for p in profiles:
        found = p["numerics"]
        if found is None or found in seen:
            continue
        seen.append(found)
        lines.append(
            f"| {cell(found['runtime'])} | {cell(found['inv_freq'])} | {cell(found['positions'])} | "
            f"{cell(found['cache'])} | {cell(found['pairing'])} | {cell(found['ignored'])} | "
            f"`{cell(found['source'])}` |"
        )
    lines += [
        "",
        "| model | layers | profiles that compute differently (first offset whose score differs) |",
        "|---|---|---|",
    ]
    for record in records:
        for group in record["runtimes"]["groups"]:
            shown = []
            for finding in group["findings"]:
                if not finding["text_tokens"]:
                    where = "image and video tokens only"
                elif finding["first_offset"] is None:
                    where = "within 2^-8"
                else:
                    where = str(finding["first_offset"])
                quantities = ", ".join(finding["quantities"])
                shown.append(f"`{finding['profile']}` ({where}; {quantities})")
            lines.append(
                f"| {cell(record['bundled']['model'])} | {cell(group['layer_type'])} | "
                f"{cell('; '.join(shown)) if shown else 'none'} |"
            )
    return [*lines, ""]


def models_page(
    records: tuple[dict, ...], marker: str, plot: figures.Plot, figure_link: str, slug: Callable[[str], str]
) -> str:
    """The models page: `marker` its first line, `figure_link` where the figure is, `slug` the anchor of a
    heading."""
    lines = [marker, "", "# Well-known models' positional setups, checked", ""]
    lines += [
        f"The suite's answers for {len(records)} public models' published `config.json` values "
        "(transcribed into the package from the public copy of the hub file cited under each model, since "
        "nothing is downloaded; the vision and audio blocks of multimodal models left out), layer group by "
        "layer group, at the context each states or documents: `pe-verify model NAME` prints the same for "
        "one of them, `pe-verify model path/to/config.json` or `pe-verify model owner/name` for any model. "
        "Every label is explained in docs/models.md, the page on `pe-verify model`.",
        "",
        "Cross-check: the test suite builds every bundled model's rotary module with transformers, at "
        f"versions {', '.join(CROSS_CHECKED)}, compares each layer type's `inv_freq` and attention factor "
        "with the suite's within stated tolerances, and the layer schedule transformers derives with the "
        "groups; differences explained so far: "
        + ("none." if not EXPLAINED else "; ".join(f"{k}: {v}" for k, v in EXPLAINED.items()) + ".")
        + " Compared at every version but the ones before the model type came to transformers: "
        + "; ".join(f"{name} (from {version})" for name, version in NEWER_THAN.items())
        + ". The same comparison runs on 73 more published configs in the test suite.",
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
    lines += rules_table()
    lines += runtimes_section(records)
    for record in records:
        lines.append(model_markdown(record, level=2))
    return "\n".join(lines).rstrip("\n") + "\n"
