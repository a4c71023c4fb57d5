"""LaTeX mathematics as Unicode text: `show` prints the catalog's formulas with it in a terminal, so that
`\\frac{d}{2}` reads `d/2`, `\\omega_i^\\top` reads `ωᵢᵀ` and a matrix reads `(a, b; c, d)`, and the
derivations page measures the width of its display formulas by it (`display_math`).

It covers the LaTeX the catalog writes (tests/cli/test_unicode_math.py renders every formula of it and
finds no command left): letters and symbols become their Unicode characters, `^` and `_` Unicode super- and
subscripts where every character has one (else `^(…)`), `\\frac{a}{b}` becomes `a/b` with parentheses
around a side that is not one term, operator names (cos, ln, diag) are set off by spaces, a `matrix` is
its rows separated by `;` (in parentheses for `pmatrix`), `cases` its rows as `value if condition`, the
rows of `gathered` and `aligned` lines of their own, and
sizing (`\\big`, `\\left`) and font commands (`\\mathrm`, `\\text`) leave their content only. A command it
does not know is left as written. The JSON output keeps the LaTeX.
"""

from __future__ import annotations

import re

#: Commands that stand for one character (or none: sizing commands, thin and negative spaces).
SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "varphi": "φ",
    "psi": "ψ",
    "omega": "ω",
    "Delta": "Δ",
    "top": "ᵀ",
    "cdot": "·",
    "times": "×",
    "pm": "±",
    "circ": "∘",
    "odot": "⊙",
    "le": "≤",
    "ge": "≥",
    "ne": "≠",
    "neq": "≠",
    "equiv": "≡",
    "sim": "∼",
    "in": "∈",
    "notin": "∉",
    "setminus": "∖",
    "mid": "∣",
    "nmid": "∤",
    "forall": "∀",
    "exists": "∃",
    "partial": "∂",
    "infty": "∞",
    "ell": "ℓ",
    "sum": "∑",
    "int": "∫",
    "iff": "⟺",
    "implies": "⟹",
    "Rightarrow": "⇒",
    "to": "→",
    "dots": "…",
    "langle": "⟨",
    "rangle": "⟩",
    "lVert": "‖",
    "rVert": "‖",
    "Vert": "‖",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "lbrace": "{",
    "rbrace": "}",
    "{": "{",
    "}": "}",
    "_": "_",
    " ": " ",
    ",": " ",
    ";": " ",
    "!": "",
    "quad": "\x05",
    "qquad": "\x05\x05",
    "bmod": " mod ",
    **dict.fromkeys(
        ("left", "right", "big", "bigl", "bigr", "Big", "Bigl", "Bigr", "limits", "textstyle"), ""
    ),
}
#: Environments whose rows are lines of a display (a formula wrapped to fit a page): one line each here.
LINES = frozenset({"gathered", "aligned"})
#: Opening and closing delimiters: the spaces written after an opening one, and before a closing one, go.
OPENING = frozenset({"langle", "lVert", "lfloor", "lceil", "lbrace", "left", "bigl", "Bigl", "textstyle"})
CLOSING = frozenset({"rangle", "rVert", "rfloor", "rceil", "rbrace", "right", "bigr", "Bigr"})
#: Operator names, printed upright and set off from a letter or digit next to them by a space.
OPERATORS = frozenset({"cos", "sin", "ln", "log", "exp", "det", "max", "min", "gcd", "lim", "inf", "sup"})
#: Commands whose one argument is printed as it is (font and text commands).
PLAIN = frozenset({"mathrm", "text", "texttt", "mathbf", "operatorname"})
#: Blackboard-bold letters, and the combining accent each accent command puts on its argument.
BLACKBOARD = {"Z": "ℤ", "Q": "ℚ", "R": "ℝ", "N": "ℕ", "C": "ℂ"}
ACCENTS = {"widetilde": "\u0303", "widehat": "\u0302", "overline": "\u0305"}

SUPERSCRIPTS = dict(zip("0123456789+-−=()nijkTdtmxyabc", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱʲᵏᵀᵈᵗᵐˣʸᵃᵇᶜ", strict=True))
SUBSCRIPTS = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))

#: A token: a command word, an escaped character, a run of spaces, or one character.
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.DOTALL)
#: Marks the parser leaves for a later pass: a cell and a row break of an environment, a quad, and the soft
#: spaces before and after an operator name or a fraction (a space where a letter or digit touches it).
CELL, ROW, QUAD, BEFORE, AFTER = "\x02", "\x03", "\x05", "\x01", "\x04"
_WORD = "A-Za-z0-9\u0370-\u03ff"
#: One term: no space, operator or separator at its top level (a side of a fraction needs no parentheses).
_TERM = re.compile(r"[^\s+\-−=,/·×:;<>≤≥≠]+")


def unicode_math(tex: str) -> str:
    """The LaTeX math expression `tex` as Unicode text: one line, or one per row of a `gathered` or
    `aligned` environment."""
    text, _ = _Parser(TOKEN.findall(tex)).sequence(0, stop=None)
    text = re.sub(" {2,}", " ", text.replace(CELL, " ").replace(ROW, "; "))
    text = re.sub(f"[{BEFORE}{AFTER}]+", lambda soft: _soft(soft, text), text)
    text = re.sub(f" *({QUAD}+) *", lambda quads: "  " * len(quads[1]), text)
    text = re.sub(r"(?<=[(\[⟨]) +| +(?=[)\]⟩])", "", text)
    return "\n".join(line.strip() for line in text.strip().split("\n"))


_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
_INLINE = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\\n])+?)(?<!\s)\$(?!\d)")
_CODE = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)


def unicode_markdown(text: str) -> str:
    """Markdown (or plain text) with each `$$…$$` and `$…$` math span, outside code spans, in Unicode."""
    parts = []
    last = 0
    for code in _CODE.finditer(text):
        parts += [_math_spans(text[last : code.start()]), code[0]]
        last = code.end()
    return "".join([*parts, _math_spans(text[last:])])


def _math_spans(text: str) -> str:
    text = _DISPLAY.sub(lambda found: unicode_math(found[1]), text)
    return _INLINE.sub(lambda found: unicode_math(found[1]), text)


def leftover_commands(text: str) -> list[str]:
    """The LaTeX commands (`\\name`) left in `text`: none in what `unicode_math` makes of the catalog."""
    return re.findall(r"\\[A-Za-z]+", text)


class _Parser:
    """A recursive reading of the tokens of one expression."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        #: Inside `\\text` or `\\texttt`, where a hyphen is a hyphen, not a minus sign.
        self.text = False

    def sequence(self, index: int, stop: str | None) -> tuple[str, int]:
        """The tokens from `index` up to `stop` (a closing `}` or `\\end`), rendered; and the index after. A
        fraction an operator name applies to (`\\cos\\frac{θ}{2}`) is put in parentheses."""
        out: list[str] = []
        operand = False
        while index < len(self.tokens) and self.tokens[index] != stop:
            token = self.tokens[index]
            if token in "^_" and out:
                script, index = self.argument(index + 1)
                out.append(_script(script, SUPERSCRIPTS if token == "^" else SUBSCRIPTS, token))
                continue
            if token[1:] in CLOSING:
                while out and out[-1].isspace():
                    out.pop()
            text, index = self.atom(index)
            if operand and token in ("\\frac", "\\tfrac"):
                text = f"({text.strip(BEFORE + AFTER)})"
            operand = text.endswith(AFTER) or (operand and text.isspace())
            out.append(text)
        return "".join(out), index + 1

    def argument(self, index: int) -> tuple[str, int]:
        """A command's argument from `index`: a `{…}` group or one token, spaces before it skipped."""
        while index < len(self.tokens) and self.tokens[index].isspace():
            index += 1
        if index < len(self.tokens) and self.tokens[index] == "{":
            return self.sequence(index + 1, "}")
        return self.atom(index) if index < len(self.tokens) else ("", index)

    def atom(self, index: int) -> tuple[str, int]:
        """One token at `index` rendered, with the arguments it takes; and the index after them."""
        token = self.tokens[index]
        if token == "{":
            return self.sequence(index + 1, "}")
        if token.isspace() or token == "~":
            return " ", index + 1
        if token == "&":
            return CELL, index + 1
        if token == "-" and not self.text:
            return "−", index + 1
        if not token.startswith("\\"):
            return token, index + 1
        name = token[1:]
        if name == "\\":
            return ROW, index + 1
        if name in SYMBOLS:
            after = index + 1
            while name in OPENING and after < len(self.tokens) and self.tokens[after].isspace():
                after += 1
            return SYMBOLS[name], after
        if name in OPERATORS:
            return f"{BEFORE}{name}{AFTER}", index + 1
        if name in ("frac", "tfrac"):
            numerator, index = self.argument(index + 1)
            denominator, index = self.argument(index)
            return f"{BEFORE}{_grouped(numerator)}/{_grouped(denominator)}{AFTER}", index
        if name == "sqrt":
            return self.root(index + 1)
        if name in PLAIN:
            self.text = name.startswith("text")
            shown, index = self.argument(index + 1)
            self.text = False
            return (f"{BEFORE}{shown}{AFTER}" if name == "operatorname" else shown), index
        if name == "mathbb":
            letter, index = self.argument(index + 1)
            return BLACKBOARD.get(letter, letter), index
        if name in ACCENTS:
            base, index = self.argument(index + 1)
            return (base + ACCENTS[name] if len(base) == 1 else f"({base}){ACCENTS[name]}"), index
        if name == "underbrace":
            braced, index = self.argument(index + 1)
            return f"[{braced}]", index
        if name == "pmod":
            modulus, index = self.argument(index + 1)
            return f" (mod {modulus})", index
        if name == "begin":
            return self.environment(index + 1)
        return f"{token}{AFTER}", index + 1

    def root(self, index: int) -> tuple[str, int]:
        """`\\sqrt{x}` as √x (√(x) for more than one term), `\\sqrt[n]{x}` with the index n raised."""
        degree = ""
        if index < len(self.tokens) and self.tokens[index] == "[":
            degree, index = self.sequence(index + 1, "]")
        radicand, index = self.argument(index)
        return f"{_script(degree, SUPERSCRIPTS, '^') if degree else ''}√{_grouped(radicand)}", index

    def environment(self, index: int) -> tuple[str, int]:
        """A `matrix`, `pmatrix` or `cases` environment whose name group starts at `index`."""
        kind, index = self.argument(index)
        body, index = self.sequence(index, "\\end")
        _, index = self.argument(index)
        rows = [[cell.strip() for cell in row.split(CELL)] for row in body.split(ROW) if row.strip()]
        if kind in LINES:
            return "\n".join(" ".join(row) for row in rows), index
        if kind == "cases":
            shown = [row[0] if len(row) == 1 else f"{row[0]} {_condition(row[1])}" for row in rows]
            return "{" + "; ".join(shown) + "}", index
        matrix = "; ".join(", ".join(row) for row in rows)
        return (f"({matrix})" if kind == "pmatrix" else matrix), index


def _soft(marks: re.Match[str], text: str) -> str:
    """A space for a run of soft marks where a letter or digit touches the name or fraction they mark."""
    before, after = text[marks.start() - 1 : marks.start()], text[marks.end() : marks.end() + 1]
    word = re.compile(f"[{_WORD}]")
    touched = (BEFORE in marks[0] and word.fullmatch(before)) or (AFTER in marks[0] and word.fullmatch(after))
    return " " if touched else ""


def _condition(text: str) -> str:
    """A `cases` condition as it reads after the value: `if λ < 1`, or `otherwise` as it is."""
    return text if text.startswith(("otherwise", "if ")) else f"if {text}"


def _grouped(text: str) -> str:
    """`text` as one side of a fraction or a root: in parentheses unless it is one term."""
    text = text.strip()
    return text if _TERM.fullmatch(re.sub(f"[{BEFORE}{AFTER}]", "", text)) else f"({text})"


def _script(text: str, table: dict[str, str], mark: str) -> str:
    """`text` raised (`^`) or lowered (`_`): in Unicode scripts when every character has one, else after
    the mark, in parentheses for more than one character."""
    text = text.strip()
    if text and all(character in table or character in table.values() for character in text):
        return "".join(table.get(character, character) for character in text)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"
