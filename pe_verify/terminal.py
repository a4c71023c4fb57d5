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

`prepare_streams` also makes the streams safe to write whatever they are (`OutputStream`):

- a standard descriptor the program was started without (`>&-`, `2>&-`) is opened on /dev/null, so that no
  file the program opens later takes its place and receives what a library or a child process writes there;
  a closed stdout fails every write (EBADF, as a closed descriptor would), a closed stderr takes everything;
- stdout keeps the first error a write or a flush meets (a closed descriptor, a full disk, a pipe whose
  reader left), though a library that wrote may have swallowed it, and `flush_stdout` returns it, so that the
  command line can choose its exit status after the last flush; after an error stdout writes to /dev/null,
  so that the interpreter's own flush at exit cannot fail again;
- stderr never fails: a message it cannot take is dropped, and the result of the command stays what it is;
- each character that a terminal could act on or that does not show (C0 and C1 controls, escape sequences,
  DEL, format characters such as bidirectional overrides, separators other than the space, surrogates,
  unassigned code points), other than a line break or a tab, is written as JSON escapes it (`\\u001b`;
  beyond U+FFFF as a UTF-16 pair), so that text from a user's file shows as text and JSON output stays the
  same JSON value (`escape_unprintable`).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Callable, Iterable
from typing import TextIO

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
    "⟺": "<=>",
    "⟹": "=>",
    "∣": "|",
    "⁻": "^-",
    "₋": "_-",
    "∀": "for all ",
    "∃": "exists ",
    "⊙": "(.)",
    "∤": " does not divide ",
    "\N{COMBINING TILDE}": "~",
    "\N{COMBINING CIRCUMFLEX ACCENT}": "^",
    "\N{COMBINING OVERLINE}": "-bar",
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
    """The ASCII for a run of characters the stream cannot encode; a letter written by its name (ω →
    omega) is set off by a space from a letter or digit beside it, so that kω reads k omega, not komega."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text, written = error.object, ""
    before = text[error.start - 1 : error.start]
    for index in range(error.start, error.end):
        word, after = ascii_text(text[index]), text[index + 1 : index + 2]
        if len(word) > 1 and word.isalpha():
            word = (" " if (written[-1:] or before).isalnum() else "") + word
            word += " " if after.isascii() and after.isalnum() else ""
        written += word
    return written, error.end


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


#: Characters of the output's own layout that `str.isprintable` does not count as printable.
_LAYOUT = str.maketrans("", "", "\n\t")


def escape_unprintable(text: str) -> str:
    """`text` with each character that is not printable (`str.isprintable`), other than a line break or a tab,
    written as a JSON escape: ``\\u`` and four hex digits, two such for a character beyond U+FFFF. Inside a
    JSON string the escape reads back as the same character, so JSON stays valid and the same."""
    if text.translate(_LAYOUT).isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else _json_escape(c) for c in text)


def _json_escape(character: str) -> str:
    units = character.encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


class OutputStream:
    """stdout or stderr as the command line writes them (see the module docstring): every write escaped
    (`escape_unprintable`) unless `escape` is false (a progress bar's own carriage returns); the first
    OSError a write or a flush meets kept in `error`, after which nothing more reaches the stream (it is
    pointed at /dev/null); the error raised again to the writer unless `forgiving` (stderr). Everything else
    is the wrapped stream's."""

    def __init__(self, stream: TextIO, *, forgiving: bool, escape: bool = True) -> None:
        self.stream, self.forgiving, self.escape = stream, forgiving, escape
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        """Write `text`, escaped; its length (what a text stream returns)."""
        if self.error is None:
            self._guarded(self.stream.write, escape_unprintable(text) if self.escape else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each of `lines`, escaped."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush the stream (nothing after an error)."""
        if self.error is None:
            self._guarded(self.stream.flush)

    def unescaped(self) -> OutputStream:
        """The same stream, written as it is: for a progress bar (carriage returns), which shows no user
        text; it never fails."""
        return OutputStream(self.stream, forgiving=True, escape=False)

    def _guarded(self, operation: Callable[..., object], *arguments: str) -> None:
        try:
            if getattr(self.stream, "closed", False):  # closed in this process: as a closed descriptor
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            operation(*arguments)
        except OSError as exc:
            self.error = exc
            self.discard()
            if not self.forgiving:
                raise

    def discard(self) -> None:
        """Send whatever the stream still holds, and anything written to its descriptor later, to /dev/null
        (a stream without a descriptor is left alone): the interpreter's last flush then succeeds quietly."""
        with contextlib.suppress(OSError, ValueError, AttributeError):
            descriptor = self.stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, descriptor)
            finally:
                os.close(null)
            self.stream.flush()

    def __getattr__(self, name: str) -> object:
        if name == "stream":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.stream, name)


def _open_standard_descriptors() -> None:
    """Open /dev/null on each of the descriptors 0, 1 and 2 that is closed: read-only for stdin and stdout
    (writing to it fails with EBADF, as it did), write-only for stderr."""
    for descriptor, flags in ((0, os.O_RDONLY), (1, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(descriptor)
        except OSError:
            opened = os.open(os.devnull, flags)
            if opened != descriptor:
                os.dup2(opened, descriptor)
                os.close(opened)
            os.set_inheritable(descriptor, True)


def _unwrapped(stream: TextIO | OutputStream | None) -> TextIO | None:
    return stream.stream if isinstance(stream, OutputStream) else stream


def prepare_streams() -> None:
    """Make stdout and stderr safe to write whatever they are (`OutputStream`, opening /dev/null on a closed
    standard descriptor), and switch them to the ASCII error handler when their encodings lack characters we
    print, and to ASCII itself under a C locale. Called at the start of every run (a fresh `OutputStream`
    each time)."""
    _open_standard_descriptors()
    stdout, stderr = _unwrapped(sys.stdout), _unwrapped(sys.stderr)
    if stdout is None:  # started without a stdout: writing to a read-only descriptor fails as it would
        stdout = open(os.open(os.devnull, os.O_RDONLY), "w", encoding="utf-8")  # noqa: SIM115
    if stderr is None:  # started without a stderr: what is written there is dropped
        stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    ascii_locale = c_locale()
    for stream in (stdout, stderr):
        if not hasattr(stream, "reconfigure"):
            continue
        if ascii_locale:
            stream.reconfigure(encoding="ascii", errors=ERRORS)
        elif not _covers_unicode(stream):
            stream.reconfigure(errors=ERRORS)
    sys.stdout = OutputStream(stdout, forgiving=False)
    sys.stderr = OutputStream(stderr, forgiving=True)


def flush_stdout() -> OSError | None:
    """Flush stdout; the first error any write to it met since `prepare_streams` (None when everything
    printed was written). After an error, stdout writes to /dev/null."""
    stream = sys.stdout
    if stream is None:
        return None
    if not isinstance(stream, OutputStream):  # not prepared: flushed and judged as it is
        stream = OutputStream(stream, forgiving=False)
    with contextlib.suppress(OSError):
        stream.flush()
    return stream.error


def discard_stdout() -> None:
    """Send what stdout still holds, and anything written to it later, to /dev/null (the reader left)."""
    stream = sys.stdout
    if stream is not None:
        (stream if isinstance(stream, OutputStream) else OutputStream(stream, forgiving=True)).discard()


def json_ascii() -> bool:
    """Whether JSON written to stdout must escape non-ASCII characters (`ensure_ascii`)."""
    return not _covers_unicode(sys.stdout)


def _is_terminal(stream: object) -> bool:
    """Whether `stream` is an open terminal (not None, not closed, not a file or a pipe)."""
    try:
        return bool(stream.isatty())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return False


def progress_bar(total: int, description: str, quiet: bool) -> tqdm:
    """A progress bar on stderr, shown only when stderr is a terminal and not `quiet` (a pipe, a log file,
    a closed stderr or none gets nothing); use it as a context manager and call `update()` per step. Leaving
    the block, by an error or a Ctrl-C too, clears the bar's line, so that a one-line message printed next
    stands alone."""
    stream = sys.stderr
    shown = not quiet and _is_terminal(stream)
    if not shown:
        stream = io.StringIO()
    elif isinstance(stream, OutputStream):
        stream = stream.unescaped()
    return tqdm(total=total, desc=description, file=stream, disable=not shown, leave=False)


def terminal_width() -> int | None:
    """The width of the terminal stdout is, or None when stdout is not one (a pipe, a file): what is printed
    there is left as it is."""
    if not _is_terminal(sys.stdout):
        return None
    return shutil.get_terminal_size().columns


def fitted(line: str, indent: int = 4, width: int | None = None) -> str:
    """`line` wrapped to `width` (default `terminal_width()`), its continuation lines indented by `indent`
    spaces more than its own; unchanged when there is no width or it fits."""
    width = terminal_width() if width is None else width
    if width is None or len(line) <= width:
        return line
    lead = len(line) - len(line.lstrip(" "))
    return textwrap.fill(
        line.strip(),
        width=max(width, lead + indent + 20),
        initial_indent=" " * lead,
        subsequent_indent=" " * (lead + indent),
        break_long_words=False,
        break_on_hyphens=False,
    )
