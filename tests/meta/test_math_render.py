"""Every math expression of the committed reports renders on GitHub, which renders `$$…$$` display blocks,
`$…$` and `` $`…`$ `` inline math (outside code).

The layout check always runs: each `$$` block is closed and stands between blank lines (or starts a list
item), so that GitHub takes it for math inside `<details>` too, and each `<details>` block leaves a blank
line after `</summary>` and before `</details>` (else GitHub shows its contents as raw text). The render
check hands every distinct expression to KaTeX (`throwOnError`) in one `node` process; it needs `node` on
PATH and the folder named by PE_VERIFY_KATEX holding `node_modules/katex`, and is skipped otherwise, unless
PE_VERIFY_KATEX_REQUIRED is 1 (as `.ci/run` sets it), which makes a missing renderer a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple, NoReturn
from unittest import mock

import pytest

from pe_verify.reporting.page_links import blank_code_spans, blank_fences

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"
KATEX_FOLDER = "PE_VERIFY_KATEX"
KATEX_REQUIRED = "PE_VERIFY_KATEX_REQUIRED"

_DISPLAY_FENCE = re.compile(r"^[ \t]*\$\$[ \t]*$")
_DISPLAY_LINE = re.compile(r"^[ \t]*(?P<item>(?:[-*+]|\d+[.)])[ \t]+)?\$\$(?P<body>.+?)\$\$[ \t]*$")
_BACKTICK_MATH = re.compile(r"\$`([^`\n]+)`\$")
#: Inline math as GitHub reads it: the opening `$` not followed by a space, the closing one not preceded by
#: a space nor followed by a digit, on one line; `\$` is a dollar sign, not a delimiter.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\\n])+?)(?<!\s)\$(?![\d$])")
_DOLLAR = re.compile(r"(?<!\\)\$")


class Display(NamedTuple):
    """A `$$` block: its first and last line (0-based) and its TeX; `item` when it starts a list item."""

    first: int
    last: int
    tex: str
    item: bool


def _is_blank(lines: list[str], index: int) -> bool:
    return not 0 <= index < len(lines) or not lines[index].strip()


def display_blocks(lines: list[str]) -> tuple[list[Display], list[tuple[int, str]]]:
    """The `$$` blocks of a page's lines (code blanked), and (line number, why) for each `$$` that opens no
    well-formed block."""
    blocks: list[Display] = []
    problems: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        one_line = _DISPLAY_LINE.match(line)
        if _DISPLAY_FENCE.match(line):
            end = index + 1
            while end < len(lines) and lines[end].strip() and not _DISPLAY_FENCE.match(lines[end]):
                end += 1
            if _is_blank(lines, end):
                problems.append((index + 1, "$$ opened and not closed before a blank line"))
            else:
                blocks.append(Display(index, end, "\n".join(lines[index + 1 : end]), item=False))
            index = end + 1
            continue
        if one_line:
            blocks.append(Display(index, index, one_line.group("body"), item=bool(one_line.group("item"))))
        elif "$$" in line:
            problems.append((index + 1, "$$ inside a line, neither a block nor a list item's block"))
        index += 1
    return blocks, problems


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def page_math(text: str) -> tuple[list[tuple[str, bool]], str]:
    """The page's math as (TeX, display) pairs, and the page with code and math blanked: a `$` left there
    delimits nothing, GitHub shows it as text."""
    lines = blank_code_spans(blank_fences(text)).split("\n")
    blocks, _ = display_blocks(lines)
    lines = blank_fences(text).split("\n")
    for block in blocks:
        lines[block.first : block.last + 1] = [""] * (block.last + 1 - block.first)
    inline = "\n".join(lines)
    backticked = [match.group(1) for match in _BACKTICK_MATH.finditer(inline)]
    inline = blank_code_spans(_BACKTICK_MATH.sub(_spaces, inline))
    dollars = [match.group(1) for match in _INLINE_MATH.finditer(inline)]
    found = [(block.tex, True) for block in blocks] + [(tex, False) for tex in backticked + dollars]
    return found, _INLINE_MATH.sub(_spaces, inline)


def layout_problems(text: str) -> list[str]:
    """Where GitHub would not render a page's math or `<details>` contents, as "line N: why" in page
    order: a malformed `$$`, a block without its blank lines, a `<details>` block without its blank lines,
    a line with a `$` that delimits no math."""
    lines = blank_code_spans(blank_fences(text)).split("\n")
    blocks, problems = display_blocks(lines)
    malformed = {line for line, _ in problems}
    for block in blocks:
        if not (block.item or _is_blank(lines, block.first - 1)):
            problems.append((block.first + 1, "no blank line before the $$ block"))
        if not _is_blank(lines, block.last + 1):
            problems.append((block.last + 1, "no blank line after the $$ block"))
    for index, line in enumerate(lines):
        summary, closing = line.find("</summary>"), line.find("</details>")
        if summary >= 0 and (line[summary + len("</summary>") :].strip() or not _is_blank(lines, index + 1)):
            problems.append((index + 1, "no blank line after </summary>"))
        if closing >= 0 and (line[:closing].strip() or not _is_blank(lines, index - 1)):
            problems.append((index + 1, "no blank line before </details>"))
    _, rest = page_math(text)
    stray = {rest.count("\n", 0, match.start()) + 1 for match in _DOLLAR.finditer(rest)}
    problems += [(line, "a $ that delimits no math") for line in stray - malformed]
    return [f"line {line}: {why}" for line, why in sorted(problems, key=lambda problem: problem[0])]


def committed_math() -> set[tuple[str, bool]]:
    """Every distinct (TeX, display) expression of the committed pages."""
    return {
        expression
        for page in sorted(REPORTS.glob("*.md"))
        for expression in page_math(page.read_text(encoding="utf-8"))[0]
    }


def test_the_committed_pages_lay_out_their_math_and_details_blocks_for_github() -> None:
    problems = [
        f"{page.name} {problem}"
        for page in sorted(REPORTS.glob("*.md"))
        for problem in layout_problems(page.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)
    kinds = {display for _, display in committed_math()}
    assert kinds == {True, False}, "the pages hold display and inline math"


#: A page with each kind of math GitHub renders, and `$` signs that are not math.
PAGE = r"""# Page $h$

Inline $a + b$ and $`c_{1}`$, a price of $20,000 and $30,000, a $ lone sign, \$escaped\$, `code $d$` and

```
$fenced$
$$
```

$$
e = mc^2
$$

1. $$f$$

    step $g$ ✓

<details><summary>More</summary>

$$h \\ i$$

</details>
"""


def test_the_math_is_found_where_github_finds_it() -> None:
    found, rest = page_math(PAGE)
    assert sorted(found) == sorted(
        [("e = mc^2", True), ("f", True), (r"h \\ i", True)]
        + [(tex, False) for tex in ("h", "a + b", "c_{1}", "g")]
    )
    assert rest.count("$") == 5 and layout_problems(PAGE) == ["line 3: a $ that delimits no math"]


BROKEN_LAYOUT = {
    "unclosed block": ("$$\nx = 1\n\ntext\n", "line 3: $$ opened and not closed before a blank line"),
    "text right before a block": ("text\n$$\nx\n$$\n", "line 4: no blank line before the $$ block"),
    "text right after a block": ("$$\nx\n$$\ntext\n", "line 5: no blank line after the $$ block"),
    "text right before a one-line block": ("text\n$$x$$\n", "line 4: no blank line before the $$ block"),
    "text right after a list item's block": ("1. $$x$$\ntext\n", "line 3: no blank line after the $$ block"),
    "block inside a line": (
        "text $$x$$ text\n",
        "line 3: $$ inside a line, neither a block nor a list item's block",
    ),
    "content right after the summary": (
        "<details><summary>S</summary>\ntext\n\n</details>\n",
        "line 3: no blank line after </summary>",
    ),
    "content on the summary's line": (
        "<details><summary>S</summary> text\n\n</details>\n",
        "line 3: no blank line after </summary>",
    ),
    "content right before the closing tag": (
        "<details><summary>S</summary>\n\ntext\n</details>\n",
        "line 6: no blank line before </details>",
    ),
    "a space inside the dollars": ("the value $ x$ here\n", "line 3: a $ that delimits no math"),
}


def test_a_list_item_may_start_with_a_block_right_after_text() -> None:
    assert layout_problems("1. $$x$$\n\n    step\n2. $$y$$\n\n    step\n") == []


@pytest.mark.parametrize("name", BROKEN_LAYOUT)
def test_a_layout_github_would_not_render_is_reported(name: str) -> None:
    body, problem = BROKEN_LAYOUT[name]
    assert layout_problems(f"# Page\n\n{body}") == [problem]


#: Expressions KaTeX must reject, rendered along with the committed ones.
BROKEN_TEX = frozenset({(r"\frac{1}{", True), (r"\frac{1}{", False), (r"\undefinedmacro{x}", False)})

#: Reads [[tex, display], …] on stdin, renders each with KaTeX (`throwOnError`), writes the failures as
#: {"failures": [[tex, display, message], …]}, or {"missing": why} when katex cannot be required.
RENDER = r"""
let katex;
try {
    katex = require(require.resolve("katex", {paths: [process.argv[1]]}));
} catch (error) {
    process.stdout.write(JSON.stringify({missing: error.message.split("\n")[0]}));
    process.exit(0);
}
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
    const failures = [];
    for (const [tex, display] of JSON.parse(Buffer.concat(chunks).toString("utf8"))) {
        try {
            katex.renderToString(tex, {displayMode: display, throwOnError: true});
        } catch (error) {
            failures.push([tex, display, error.message]);
        }
    }
    process.stdout.write(JSON.stringify({failures}));
});
"""


def unavailable(reason: str) -> NoReturn:
    """Skip the render check for `reason`, or fail it when PE_VERIFY_KATEX_REQUIRED is 1."""
    if os.environ.get(KATEX_REQUIRED) == "1":
        pytest.fail(f"{KATEX_REQUIRED}=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def katex_failures() -> dict[tuple[str, bool], str]:
    """KaTeX's message for each committed or broken expression it rejects, all rendered by one node."""
    folder, node = os.environ.get(KATEX_FOLDER), shutil.which("node")
    if not folder:
        unavailable(f"{KATEX_FOLDER} is not set (a folder holding node_modules/katex)")
    if node is None:
        unavailable("node is not on PATH")
    expressions = sorted(committed_math() | BROKEN_TEX)
    done = subprocess.run(
        [node, "-e", RENDER, folder],
        input=json.dumps(expressions),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    if "missing" in answer:
        unavailable(f"katex cannot be required from {folder}: {answer['missing']}")
    return {(tex, display): message for tex, display, message in answer["failures"]}


def test_every_committed_expression_renders(katex_failures: dict[tuple[str, bool], str]) -> None:
    failing = [
        f"{'display' if display else 'inline'} {tex!r}: {message}"
        for (tex, display), message in sorted(katex_failures.items())
        if (tex, display) not in BROKEN_TEX
    ]
    assert not failing, "\n".join(failing)


def test_katex_rejects_broken_tex(katex_failures: dict[tuple[str, bool], str]) -> None:
    assert katex_failures.keys() >= BROKEN_TEX


def test_a_missing_renderer_skips_unless_required() -> None:
    with mock.patch.dict(os.environ, {KATEX_REQUIRED: ""}), pytest.raises(pytest.skip.Exception):
        unavailable("no renderer")
    with (
        mock.patch.dict(os.environ, {KATEX_REQUIRED: "1"}),
        pytest.raises(pytest.fail.Exception, match="no renderer"),
    ):
        unavailable("no renderer")
