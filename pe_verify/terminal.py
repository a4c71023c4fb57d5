"""What the command line writes to a terminal or a pipe that cannot show every character.

The output is mathematics in Unicode (ω, ≤, ‖·‖, ℤ, —). When stdout or stderr uses an encoding without them
(`PYTHONIOENCODING=ascii`, a Windows code page), the streams are switched to the error handler
"pe-verify-ascii", which writes each character the encoding lacks as ASCII that keeps its meaning: a table
for the symbols the output uses (≠ → !=, ≤ → <=, · → *, — → --), Greek letters by name (ω → omega),
super- and subscripts as ^2 and _0, compatibility forms by NFKC (ℤ → Z), other scripts transliterated by
`anyascii` (Korean section names become romanised), and `?` for what is left. anyascii alone is not used
for symbols because it maps ≠ to = and ✓ to v. JSON output is escaped instead (`\\u03c9`), which loses
nothing.

The C (POSIX) locale asks for ASCII, but Python turns its UTF-8 mode on there and gives the streams UTF-8, so
the locale is read from the environment too: when Python chose UTF-8 mode by itself (no `PYTHONUTF8`, no
`-X utf8`, no `PYTHONIOENCODING`) and the locale asked for (`LC_ALL`, else `LC_CTYPE` unless it is the
`C.UTF-8` Python coerced it to, else `LANG`; none set is C) is C or POSIX, the streams are made ASCII.

Long work shows a `tqdm` progress bar on stderr, only when stderr is a terminal and `--quiet` is not given.
"""

from __future__ import annotations

import codecs
import os
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


#: What Python's locale coercion (PEP 538) writes into LC_CTYPE when it replaces a C locale.
_COERCED = ("C.UTF-8", "C.utf8", "UTF-8")


def c_locale() -> bool:
    """Whether the user's locale is C or POSIX while Python's own UTF-8 mode made the streams UTF-8 (see the
    module docstring); an explicit choice of encoding (PYTHONIOENCODING, PYTHONUTF8, -X utf8) wins."""
    environ = os.environ
    if not sys.flags.utf8_mode or "utf8" in sys._xoptions:
        return False
    if environ.get("PYTHONUTF8") or environ.get("PYTHONIOENCODING"):
        return False
    ctype = environ.get("LC_CTYPE", "")
    name = environ.get("LC_ALL") or ("" if ctype in _COERCED else ctype) or environ.get("LANG") or "C"
    return name in ("C", "POSIX")


def prepare_streams() -> None:
    """Switch stdout and stderr to the ASCII error handler when their encodings lack characters we print, and
    to ASCII itself under a C locale."""
    ascii_locale = c_locale()
    for stream in (sys.stdout, sys.stderr):
        if not hasattr(stream, "reconfigure"):
            continue
        if ascii_locale:
            stream.reconfigure(encoding="ascii", errors=ERRORS)
        elif not _covers_unicode(stream):
            stream.reconfigure(errors=ERRORS)


def json_ascii() -> bool:
    """Whether JSON written to stdout must escape non-ASCII characters (`ensure_ascii`)."""
    return not _covers_unicode(sys.stdout)


def progress_bar(total: int, description: str, quiet: bool) -> tqdm:
    """A progress bar on stderr, shown only when stderr is a terminal and not `quiet` (a pipe or a log file
    gets nothing); use it as a context manager and call `update()` per step."""
    shown = not quiet and sys.stderr.isatty()
    return tqdm(total=total, desc=description, file=sys.stderr, disable=not shown, leave=False)
