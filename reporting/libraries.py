"""The library atlas page: what `pe-verify check` finds in the real RoPE and ALiBi code of the libraries the
`libraries` extra pins, rendered from the committed record `pe-verify atlas` writes (`RECORD`), so that the
page needs none of the libraries installed and is the same on every machine.

Per library, one row per implementation (its target, the dtype of the tensors it was handed, the
properties that fail, what check identifies, its conventions) and each defect with the line of the library's
code that causes it, as the record cites it; a defect the record cites no line for is printed as not
confirmed in the library's source, never as the library's bug.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .markdown import cell, code

PAGE = "libraries.md"
#: The committed record `pe-verify atlas --record` writes and the page is rendered from.
RECORD = Path(__file__).resolve().parent / "data" / "libraries.json"
#: The record's "format": what `pe-verify atlas` overwrites and the page reads.
FORMAT = "pe-verify library atlas 1"
#: Where the repository keeps `RECORD`, from its root.
IN_REPOSITORY = "reporting/data/libraries.json"
#: The command that writes the record, from the repository's root.
RERUN = f'pip install -e ".[libraries]" && pe-verify atlas --record {IN_REPOSITORY}'

#: What the page says of a defect that no line of the library's code is cited for.
UNCONFIRMED = "not confirmed in the library's source (a finding of the check, not shown as its bug)"
#: Identification parameters the page shows elsewhere (a RoPE layout in the variant's name, the dtype in a
#: column of its own, the convention before the rest) or not at all (the sizes and tolerances checked).
SHOWN_APART = frozenset({"convention", "called with", "d", "heads", "dtype", "tolerance", "layout_seq_len"})


def read_record() -> dict[str, Any]:
    """The committed atlas record (`RECORD`)."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def _value(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def identified_text(entry: dict[str, Any]) -> str:
    """What check identifies, in one cell: the variant (and whether it matches), how the implementation was
    called and the parameters."""
    identified = entry["identified"]
    if identified is None:
        return "nothing (no size left to check)"
    parameters = identified["parameters"]
    variant = identified["variant"] + ("" if identified["matches"] else " (no known variant matches)")
    named = SHOWN_APART | ({"layout"} if str(parameters.get("layout")) in identified["variant"] else set())
    shown = ", ".join(f"{k} {_value(v)}" for k, v in parameters.items() if k not in named)
    convention = parameters.get("convention")
    how = f"; convention {code(convention)}, {parameters['called with']}" if convention else ""
    return f"**{variant}**{how}" + (f"; {shown}" if shown else "")


def _dtype(entry: dict[str, Any]) -> str:
    """The dtype of the tensors a RoPE implementation was handed, or the one an ALiBi one returned."""
    identified = entry["identified"] or {"parameters": {}}
    return entry["settings"].get("dtype") or identified["parameters"].get("dtype", "—")


def _failed(entry: dict[str, Any]) -> str:
    failed = [code(p["name"]) for p in entry["properties"] if not p["passed"]]
    total = len(entry["properties"])
    if not failed:
        return f"all {total} hold"
    return f"{len(failed)} of {total} fail: " + ", ".join(failed)


def _labels(entry: dict[str, Any], defect: bool) -> str:
    return ", ".join(code(f["label"]) for f in entry["findings"] if f["defect"] == defect) or "—"


def defect_lines(entries: list[dict[str, Any]]) -> list[str]:
    """The defects of `entries` as list items, one per label and cited line: the label, the line of the
    library's code (file:line, the code it holds, why) or that its source was not confirmed, and the
    implementations (with their dtypes) it was found in."""
    found: dict[tuple[str, str], dict[str, list[str]]] = {}
    for e in entries:
        for f in e["findings"]:
            if f["defect"]:
                cited = f["citation"]
                if cited is None:
                    cause = UNCONFIRMED
                else:
                    line = f"{cited['path']}:{cited['line']}"
                    cause = f"{code(line)} {code(cited['snippet'])}: {cited['why']}"
                targets = found.setdefault((f["label"], cause), {})
                targets.setdefault(e["target"], []).append(_dtype(e))
    return [
        f"- {code(label)}: {cause}. Found in "
        + ", ".join(f"{code(target)} ({', '.join(dtypes)})" for target, dtypes in targets.items())
        + "."
        for (label, cause), targets in found.items()
    ]


def _settings_line(record: dict[str, Any]) -> str:
    """The settings the implementations share, as the record states them (the first RoPE one's)."""
    rope = next(e["settings"] for e in record["implementations"] if e["family"] == "rope")
    sizes = ", ".join(map(str, rope["ds"]))
    return (
        f"head sizes d = {sizes}, declared base {_value(rope['base'])}, positions below {rope['max_pos']}, "
        f"{rope['examples']} Hypothesis examples per property with seed {rope['seed']}"
    )


def libraries_page(record: dict[str, Any], marker: str, dashboard: str) -> str:
    """The atlas page of `record`: what was run and how to rerun it, then per library its implementations
    in a table and its defects with their citations."""
    entries = record["implementations"]
    libraries = record["libraries"]
    lines = [marker, "", "# Real libraries' RoPE and ALiBi code, checked", ""]
    lines += [
        f"[All claims]({dashboard}) · {len(entries)} implementations of {len(libraries)} libraries.",
        "",
        "`pe-verify check`'s battery run on the positional-encoding code of "
        + ", ".join(f"{name} {version}" for name, version in libraries.items())
        + " (the versions the `libraries` extra pins), as the code is: each implementation by its own name, "
        "or a configuration of it made from the library's own code (`pe_verify.atlas`), called by its "
        f"own convention with no adapter. Settings: {_settings_line(record)}; some implementations again on "
        "bfloat16 tensors, as a bfloat16 model runs them (`--dtype bfloat16`); ALiBi at head counts 1 to "
        "64. The record keeps what no machine changes (labels, layouts, rules and their parameters, pass or "
        "fail), so a rerun anywhere gives the same bytes; CI checks that it does.",
        "",
        "Rerun it from the repository's root and render this page:",
        "",
        "```sh",
        f"{RERUN} && pe-verify report",
        "```",
        "",
        "A *defect* is a finding that fails a property or is an error; each is cited with the line of the "
        "library's code that causes it, read in the installed source at the pinned version (file paths "
        "relative to the folder the library is installed in). A defect no line was found for is marked "
        "not confirmed. *Conventions* (the layout, a scaling rule, partial rotary, an attention factor) "
        "are findings that fail nothing.",
        "",
    ]
    for library, version in libraries.items():
        own = [e for e in entries if e["library"] == library]
        lines += [f"## {library} {version}", ""]
        lines += ["| implementation | dtype | properties | identified | conventions | defects |"]
        lines += ["|---|---|---|---|---|---|"]
        for e in own:
            target = code(e["target"]) + (f" — {e['configuration']}" if e["configuration"] else "")
            cells = (target, _dtype(e), _failed(e), identified_text(e), _labels(e, False), _labels(e, True))
            lines.append("| " + " | ".join(cell(text) for text in cells) + " |")
        lines.append("")
        found = defect_lines(own)
        lines += ["Defects:", "", *found, ""] if found else ["No defect.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
