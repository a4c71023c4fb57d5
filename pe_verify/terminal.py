"""What the command line writes to a terminal or a pipe that cannot show every character.

The output is mathematics in Unicode (ω, ≤, ‖·‖, ℤ, —). When stdout or stderr uses an encoding without them
(`PYTHONIOENCODING=ascii`, a C locale, a Windows code page), the streams are switched to the error handler
"pe-verify-ascii", which writes each character the encoding lacks as ASCII that keeps its meaning: a table
for the symbols the output uses (≠ → !=, ≤ → <=, · → *, — → --), Greek letters by name (ω → omega),
super- and subscripts as ^2 and _0, compatibility forms by NFKC (ℤ → Z), other scripts transliterated by
`anyascii` (Korean section names become romanised), and `?` for what is left. anyascii alone is not used
for symbols because it maps ≠ to = and ✓ to v. JSON output is escaped instead (`\\u03c9`), which loses
nothing.

Long work shows a `tqdm` progress bar on stderr, only when stderr is a terminal and `--quiet` is not given.
"""

from __future__ import annotations

import codecs
import sys
import unicodedata

from anyascii import anyascii
from tqdm import tqdm

ERRORS = "pe-verify-ascii"

SYMBOLS = {
    "≠": "!=",
    "≤": "<=",
    "≥": ">=",
    "≈": "~=",
    "≡": "==",
    "±": "+/-",
    "∓": "-/+",
    "×": "x",
    "·": "*",
    "−": "-",
    "–": "-",
    "—": "--",
    "…": "...",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "‖": "||",
    "∈": " in ",
    "∉": " not in ",
    "√": "sqrt",
    "→": "->",
    "↦": "|->",
    "⇒": "=>",
    "⇔": "<=>",
    "∞": "inf",
    "∑": "sum",
    "∫": "integral",
    "∂": "d",
    "∖": "\\",
    "⌈": "ceil(",
    "⌉": ")",
    "⌊": "floor(",
    "⌋": ")",
    "⟨": "<",
    "⟩": ">",
    "⁄": "/",
    "§": "section ",
    "✓": "ok",
    "✗": "FAILED",
    "⚠": "!",
    "\N{VARIATION SELECTOR-16}": "",
}


def ascii_text(character: str) -> str:
    """ASCII that keeps the meaning of one character (see the module docstring for the order of rules)."""
    if character.isascii():
        return character
    if character in SYMBOLS:
        return SYMBOLS[character]
    name = unicodedata.name(character, "")
    if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) and " WITH " not in name:
        letter = name.rsplit(" ", 1)[1].lower()
        return letter if "SMALL" in name else letter.capitalize()
    decomposition = unicodedata.decomposition(character)
    normal = unicodedata.normalize("NFKC", character)
    if normal.isascii():
        prefix = {"<super>": "^", "<sub>": "_"}.get(decomposition.split(" ", 1)[0], "")
        return prefix + normal
    return anyascii(character) or "?"


def _replace(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(ascii_text(c) for c in error.object[error.start : error.end]), error.end


codecs.register_error(ERRORS, _replace)


def _covers_unicode(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        return codecs.lookup(encoding).name in ("utf-8", "utf-16", "utf-32", "gb18030")
    except LookupError:
        return False


def prepare_streams() -> None:
    """Switch stdout and stderr to the ASCII error handler when their encodings lack characters we print."""
    for stream in (sys.stdout, sys.stderr):
        if not _covers_unicode(stream) and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ERRORS)


def json_ascii() -> bool:
    """Whether JSON written to stdout must escape non-ASCII characters (`ensure_ascii`)."""
    return not _covers_unicode(sys.stdout)


def progress_bar(total: int, description: str, quiet: bool) -> tqdm:
    """A progress bar on stderr, shown only when stderr is a terminal and not `quiet` (a pipe or a log file
    gets nothing); use it as a context manager and call `update()` per step."""
    shown = not quiet and sys.stderr.isatty()
    return tqdm(total=total, desc=description, file=sys.stderr, disable=not shown, leave=False)
