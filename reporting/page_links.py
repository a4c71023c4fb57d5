"""The links of the report pages: every relative link and image names a file of the repository, a line
within it, or a heading or explicit anchor of the markdown page it names, as GitHub resolves them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from urllib.parse import unquote

from .markdown import heading_anchors

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\1(?!`)", re.DOTALL)
#: A link or image `[text](target "title")`, found from its `[` so that an image inside a link's text is
#: found too: the text may hold one level of brackets, the target no spaces or parentheses.
_LINK = re.compile(r"\[(?=(?:[^\[\]]|\[[^\[\]]*\])*\]\((?P<target>[^()\s]*)(?:\s+\"[^\"]*\")?\))")
_ABSOLUTE = re.compile(r"(?:https?|mailto):", re.IGNORECASE)
_LINE = re.compile(r"L(\d+)(?:-L(\d+))?")
_HTML_ANCHOR = re.compile(r"<a\s[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def blank_fences(text: str) -> str:
    """The text with each fenced code block, its fence lines included, turned into spaces (lines and
    offsets kept); a fence left open runs to the end, as in CommonMark."""
    lines, fence = text.split("\n"), ""
    for index, line in enumerate(lines):
        match = _FENCE.match(line)
        run, rest = match.groups() if match else ("", "")
        if fence:
            if run[:1] == fence[0] and len(run) >= len(fence) and not rest.strip():
                fence = ""
            lines[index] = _blank(line)
        elif run and not (run[0] == "`" and "`" in rest):
            fence, lines[index] = run, _blank(line)
    return "\n".join(lines)


def blank_code_spans(text: str) -> str:
    """The text with each inline code span (backtick runs of equal length, within one paragraph) turned
    into spaces, lines and offsets kept."""
    return _CODE_SPAN.sub(lambda match: _blank(match.group(0)), text)


def page_anchors(text: str) -> set[str]:
    """The anchors a link may name on a markdown page: its headings' outside code blocks, numbered as GitHub
    numbers repeated headings, and its explicit `<a id="…">` / `<a name="…">` anchors."""
    outside_fences = blank_fences(text)
    explicit = _HTML_ANCHOR.findall(blank_code_spans(outside_fences))
    return {anchor for _, anchor in heading_anchors(outside_fences)} | set(explicit)


def _line_count(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


def _unresolved(page: Path, target: str, known: dict[Path, AbstractSet[str]], root: Path) -> str | None:
    """Why a relative `target` on `page` does not resolve, or None when it does."""
    path_part, _, fragment = (unquote(part) for part in target.partition("#"))
    linked = (page.parent / path_part).resolve() if path_part else page
    if path_part and not linked.is_relative_to(root):
        return "outside the repository"
    if path_part and not linked.exists():
        return "no such file"
    if not fragment:
        return None
    if linked.suffix == ".md":
        if linked not in known:
            known[linked] = page_anchors(linked.read_text(encoding="utf-8"))
        return None if fragment in known[linked] else f"no heading or anchor #{fragment} on {linked.name}"
    line = _LINE.fullmatch(fragment)
    if not line:
        return f"#{fragment} is neither a line (#L<n>) nor on a markdown page"
    count = _line_count(linked)
    beyond = [number for number in filter(None, line.groups()) if not 1 <= int(number) <= count]
    return f"line {beyond[0]} outside {linked.name} ({count} lines)" if beyond else None


def link_problems(page: Path, text: str, anchors: Mapping[Path, AbstractSet[str]], root: Path) -> list[str]:
    """Each link or image of one markdown page (`text`, the page at `page`) that does not resolve, as
    "page:line: target: why"; links in code blocks and code spans are not links. `anchors` holds the anchors
    of the pages already read, by path (any other markdown page linked is read); a file linked must lie
    inside `root`, the repository."""
    known = {path.resolve(): names for path, names in anchors.items()}
    page, root = page.resolve(), root.resolve()
    outside_code = blank_code_spans(blank_fences(text))
    problems = []
    for match in _LINK.finditer(outside_code):
        target = match.group("target")
        why = None if _ABSOLUTE.match(target) else _unresolved(page, target, known, root)
        if why:
            line = outside_code.count("\n", 0, match.start()) + 1
            problems.append(f"{page.name}:{line}: {target}: {why}")
    return problems


def unresolved_links(folder: Path) -> list[str]:
    """Each link of the markdown pages in `folder` (not its subfolders) that does not resolve, one line a
    problem, none when all resolve. The folder's parent is the repository: the reports sit at its top."""
    pages = {path.resolve(): path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.md"))}
    anchors = {path: page_anchors(text) for path, text in pages.items()}
    root = folder.resolve().parent
    return [problem for path, text in pages.items() for problem in link_problems(path, text, anchors, root)]
