"""Markdown as GitHub renders it: heading anchors, table cells, code spans, and statements cut short."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+(?=[A-Z(])")


_TAG = re.compile(r"<[^>]*>")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: HTML tags dropped, lower case, punctuation dropped, spaces turned
    into hyphens."""
    kept = (
        ch
        for ch in _TAG.sub("", heading).strip().lower()
        if ch.isalnum() or ch in " -_" or unicodedata.category(ch).startswith("M")
    )
    return "".join(kept).replace(" ", "-")


def heading_anchors(markdown: str) -> list[tuple[str, str]]:
    """Each ATX heading of the page with its anchor, made unique the way GitHub does (-1, -2, … appended)."""
    occurrences: dict[str, int] = {}
    anchors = []
    for line in markdown.splitlines():
        match = _HEADING.match(line)
        if not match:
            continue
        original = slug = github_slug(match.group(2))
        while slug in occurrences:
            occurrences[original] += 1
            slug = f"{original}-{occurrences[original]}"
        occurrences[slug] = 0
        anchors.append((match.group(0), slug))
    return anchors


def short_statement(statement: str, limit: int = 100) -> str:
    """The statement's first sentence, cut at a word boundary to at most `limit` characters, never inside
    inline math (a cut that would leave a `$` open is moved before that `$`)."""
    sentence = _SENTENCE_END.split(statement.strip(), maxsplit=1)[0]
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1].rsplit(" ", 1)[0]
    if cut.count("$") % 2:
        cut = cut[: cut.rindex("$")].rstrip()
    return cut.rstrip(",;:") + "…"


def lead_clause(text: str) -> str:
    """The text up to its first colon or dash that is not inside brackets or math: what a summary says
    before it gives the particulars."""
    depth, math = 0, False
    for index, ch in enumerate(text):
        if ch == "$":
            math = not math
        elif ch in "([{" and not math:
            depth += 1
        elif ch in ")]}" and not math:
            depth -= 1
        elif depth == 0 and not math and (text.startswith(": ", index) or text.startswith(" — ", index)):
            return text[:index]
    return text


def cell(text: str) -> str:
    """Text safe inside a markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", r"\|")


def code(text: str) -> str:
    """Text as an inline code span (fenced with more backticks than it contains)."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def folded(summary: str, body: Sequence[str]) -> list[str]:
    """Lines folded into a `<details>` block under a one-line summary (plain text). The blank lines after the
    summary and before the end make GitHub render the body as markdown, display math included."""
    while body and not body[-1].strip():
        body = body[:-1]
    return [
        f"<details><summary>{html.escape(summary, quote=False)}</summary>",
        "",
        *body,
        "",
        "</details>",
        "",
    ]
