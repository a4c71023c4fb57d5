"""What `pe-verify list` and `show` computed, kept between runs so that they answer at once.

The results depend only on the code and on the libraries that run it, so they are stored under a key: the
SHA-256 of every Python source file of the package, of the name and version of each dependency, and of the
Python version. Any change of either gives a new key, and the old results are never read again (they are
removed when the new ones are stored). The results are kept in `$PE_VERIFY_CACHE` if set, else in the
user's cache folder (`$XDG_CACHE_HOME/pe-verify` or `~/.cache/pe-verify` on Linux, from `platformdirs`),
as one JSON file per key. A failure to store is ignored: the cache can make a run faster, never make it fail
or lie. `report` never uses it.

A stored file is trusted only as far as it is checked: it is opened only if it is a regular file (never a
FIFO or a device, which could block or never end), read up to `MAX_BYTES`, parsed (a nesting too deep to
parse counts as unparsable), and read as a typed `records.StoredResults` (`records.parsed`): every claim
record has exactly the fields of `records.ClaimRecord` with their types and verdicts the catalog's
vocabulary knows, its parts agree (the id it is filed under, the same verdicts in its row and in its
details, a change noted exactly when a computed verdict differs from the recorded one), and every filed id is
in the list of ids, which holds each id once; a list of ids that is not the catalog's is caught when the
catalog is next read. A file that fails any of this counts as corrupt: nothing of it is read, and the
results are computed anew and stored over it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import stat
import tempfile
from pathlib import Path

import platformdirs

from pe_verify.records import StoredResults, parsed, plain

ENVIRONMENT = "PE_VERIFY_CACHE"
PACKAGES = (
    "pe_verify",
    "pe_verify.proofs",
    "pe_verify.properties",
    "pe_verify.claims",
    "pe_verify.reporting",
)
DISTRIBUTION = "pe-verify"

#: Largest cache file read (the whole catalog takes under 1 MB).
MAX_BYTES = 64 * 2**20


def directory() -> Path:
    """Where the results are kept: $PE_VERIFY_CACHE, else the user's cache folder for pe-verify."""
    chosen = os.environ.get(ENVIRONMENT)
    return Path(chosen) if chosen else Path(platformdirs.user_cache_dir(DISTRIBUTION))


def source_files() -> list[tuple[str, Path]]:
    """Every file of the package's folders and their subfolders — sources and data such as the committed
    certificates, not bytecode — as (folder/relative path, path), in a fixed order."""
    files = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in map(Path, spec.submodule_search_locations or ()):
            for path in folder.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                    files[f"{folder.name}/{path.relative_to(folder).as_posix()}"] = path
    return sorted(files.items())


def dependencies() -> list[str]:
    """name==version of every dependency the package requires (not the optional extras)."""
    found = []
    for requirement in importlib.metadata.requires(DISTRIBUTION) or ():
        if "extra ==" in requirement:
            continue
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)[0]
        try:
            found.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return sorted(found)


def key() -> str:
    """The hash of the package's sources, its dependencies' versions and the Python version."""
    digest = hashlib.sha256()
    for label, path in source_files():
        digest.update(f"{label}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for line in [*dependencies(), f"python=={platform.python_version()}"]:
        digest.update(f"{line}\0".encode())
    return digest.hexdigest()


def _path(current: str) -> Path:
    return directory() / f"results-{current[:32]}.json"


def _read(path: Path) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most MAX_BYTES, else None (never blocks)."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(MAX_BYTES + 1)
        return data if len(data) <= MAX_BYTES else None
    except OSError:
        return None
    finally:
        os.close(handle)


def load(current: str) -> StoredResults | None:
    """The stored results for key `current`; None when nothing is stored or the file does not validate
    (module docstring)."""
    raw = _read(_path(current))
    if raw is None:
        return None
    try:
        stored = parsed(StoredResults, json.loads(raw.decode("utf-8")), "the results file")
    except (ValueError, RecursionError):  # not UTF-8, not JSON, too deep, or not the records (RecordError)
        return None
    return stored if stored.key == current else None


def store(results: StoredResults) -> None:
    """Keep `results` under their key (atomically), and remove the results of other keys."""
    current = results.key
    folder = directory()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".results-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(plain(results), stream, ensure_ascii=False)
            os.replace(temporary, _path(current))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        for old in folder.glob("results-*.json"):
            if old != _path(current):
                old.unlink()
