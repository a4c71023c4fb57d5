"""Display formulas that fit a page: a formula wider than `WIDTH` is wrapped into the lines of a `gathered`
environment (which KaTeX and GitHub render), broken first after its top-level spacing (`\\quad`,
`\\qquad`: the separators between the facts of a statement), then, for a piece still too wide, after its
top-level semicolons and commas, then before its top-level relations (`=`, `\\le`, `\\iff`, …). Nothing
inside braces, parentheses, brackets, `\\left…\\right` or an environment is broken.

A formula's width is the length of its longest line as Unicode text (`unicode_math`): a fraction counts as
`a/b` and a matrix as its rows in a line, so the width a page shows is at most that.
"""

from __future__ import annotations

import re

from .unicode_math import TOKEN, unicode_math

#: The widest a display formula may be, in characters of its Unicode text: what a GitHub page's column shows
#: of display math without a scroll bar, at about 9 pixels a character in 900.
WIDTH = 100

_OPEN = frozenset({"{", "(", "[", "\\left", "\\begin", "\\langle", "\\lVert", "\\lbrace"})
_CLOSE = frozenset({"}", ")", "]", "\\right", "\\end", "\\rangle", "\\rVert", "\\rbrace"})
_SPACING = frozenset({"\\quad", "\\qquad"})
_RELATIONS = frozenset({"=", "<", ">", "\\le", "\\ge", "\\neq", "\\ne", "\\iff", "\\implies", "\\Rightarrow"})
#: Where a formula too wide is broken, in turn for each piece still too wide: after its spacing, after its
#: semicolons and commas, before its relations.
_BREAKS = ((_SPACING, True), (frozenset({";", ","}), True), (_RELATIONS, False))
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
_TRAILING_SPACING = re.compile(r"(\s*\\q?quad)+\s*$")


def display_width(tex: str) -> int:
    """The width of a display formula: its longest line as Unicode text."""
    return max(len(line) for line in unicode_math(tex).split("\n"))


def wrapped(tex: str, width: int = WIDTH) -> str:
    """`tex` itself when it fits `width`, else its lines in a `gathered` environment, each line as many
    whole pieces as fit (a piece wider than `width` alone stays one line)."""
    if display_width(tex) <= width:
        return tex
    pieces = [tex]
    for marks, after in _BREAKS:
        pieces = [part for piece in pieces for part in _fitting(piece, marks, after, width)]
    lines = [pieces[0]]
    for piece in pieces[1:]:
        joined = f"{lines[-1]} {piece}"
        if display_width(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(piece)
    if len(lines) == 1:
        return tex
    lines = [_TRAILING_SPACING.sub("", line) for line in lines]
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"


def wrapped_displays(markdown: str, width: int = WIDTH) -> str:
    """`markdown` with each `$$…$$` display formula `wrapped` to `width`."""
    return _DISPLAY.sub(lambda found: f"$${wrapped(found[1], width)}$$", markdown)


def _fitting(piece: str, marks: frozenset[str], after: bool, width: int) -> list[str]:
    """`piece` itself when it fits `width`, else cut at its top-level `marks` (`_split`)."""
    return [piece] if display_width(piece) <= width else _split(piece, marks, after)


def _split(tex: str, marks: frozenset[str], after: bool) -> list[str]:
    """`tex` cut at its top-level tokens among `marks`: after each (the mark ending its piece: spacing), or
    before each (the mark starting the next piece: a relation). Pieces that are only spaces go."""
    pieces, current, depth = [], [], 0
    for token in TOKEN.findall(tex):
        if depth == 0 and token in marks:
            pieces.append("".join([*current, token] if after else current))
            current = [] if after else [token]
            continue
        depth += (token in _OPEN) - (token in _CLOSE)
        current.append(token)
    pieces.append("".join(current))
    return [piece.strip() for piece in pieces if piece.strip()]
