"""Publish a folder of generated files all at once, never overwriting or removing a file we did not write.

`publish(folder, files, ours, extras)` builds the new folder beside the old one, in a hidden sibling
`.NAME.pe-verify-XXXXXXXX/new`: the new files, plus a hard link (a copy where linking is refused) of every
entry of the old folder that is not ours, so the user's own files and folders come along unchanged. It then
swaps the two folders in one step — `renameat2(RENAME_EXCHANGE)` on Linux; elsewhere two renames
microseconds apart — replaces each extra file (the README whose headline table is refreshed) from a copy
staged in the same sibling, and removes the sibling, which by then holds the old folder. A failure or a
kill before the swap leaves the old folder as it was; after it, the new one: never a mix, and no temporary
file inside the folder. If an extra file cannot be replaced, the swap is undone, so the pages and the
extras change together or not at all (only a kill in the microseconds between the two can separate them).
The sibling holds an exclusive lock while in use; a later run removes siblings whose lock is free (left by
a killed run) and no other.

Which files are ours is the caller's rule, `ours(relative path, path)` (for the reports: pages whose first
line is the report's marker, PNGs in figures/ carrying the figures' marker chunk). An existing entry where a
new file goes must be ours, or nothing is written (`ForeignFile`); an entry of ours that is no longer
produced is left out of the new folder; every other entry is kept. Besides files, the folder may hold only
the folders that enclose one of the new files (for the reports: figures/), the only folders counted as
publishing's own: a symbolic link, a mount point or any other folder inside it is refused (`Refused`), as are
the root folder, the home folder or an ancestor of it, and a path under a regular file. `check` runs the same
tests, and the writability of the folder, its parent and the extras, so a caller can refuse before any work.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath

Ours = Callable[[PurePosixPath, Path], bool]

#: Siblings without a lock file (a run killed between creating and locking one) are removed after this.
ABANDONED_SECONDS = 600

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP)
_LIBC = ctypes.CDLL(None, use_errno=True)
_TOP = PurePosixPath()
_ANOTHER = "move it away or choose another --out folder"


class Refused(Exception):
    """The folder cannot be published as it stands; nothing was written."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason} (nothing was written)")
        self.path = path


class ForeignFile(Refused):
    """A file (or folder) we did not write sits where a new file would go; nothing was written."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, f"was not written by pe-verify, and the report would replace it: {_ANOTHER}")


def _sibling_prefix(folder: Path) -> str:
    return f".{folder.name}.pe-verify-"


def _require_writable(path: Path) -> None:
    if not os.access(path, os.W_OK | os.X_OK if path.is_dir() else os.W_OK):
        raise PermissionError(errno.EACCES, "not writable, so nothing was written", str(path))


def _holders(names: Iterable[str]) -> set[PurePosixPath]:
    """The folders that enclose one of `names` (relative paths): the only folders publishing creates."""
    return {
        PurePosixPath(*PurePosixPath(name).parts[:depth])
        for name in names
        for depth in range(1, len(PurePosixPath(name).parts))
    }


def _mount_points() -> frozenset[Path]:
    """The mount points /proc/self/mountinfo lists (bind mounts on the same device too); empty elsewhere."""
    try:
        lines = Path("/proc/self/mountinfo").read_bytes().splitlines()
    except OSError:
        return frozenset()
    unescape = re.compile(rb"\\([0-7]{3})")
    fields = (line.split(b" ") for line in lines)
    return frozenset(
        Path(os.fsdecode(unescape.sub(lambda m: bytes([int(m.group(1), 8)]), parts[4])))
        for parts in fields
        if len(parts) > 4
    )


def _refuse_wide(folder: Path) -> None:
    """Refuse the root folder, the home folder and its ancestors: publishing replaces its folder whole."""
    why = "the report replaces its folder as a whole; choose a folder of its own"
    if folder == Path(folder.anchor):
        raise Refused(folder, f"is the root folder: {why}")
    home = os.path.expanduser("~")  # "~" itself, or "" from an empty HOME, when there is none
    if not os.path.isabs(home):
        return
    if folder == Path(home).resolve():
        raise Refused(folder, f"is your home folder: {why}")
    if Path(home).resolve().is_relative_to(folder):
        raise Refused(folder, f"holds your home folder: {why}")


def _refuse_entry(
    folder: Path, inner: PurePosixPath, holders: set[PurePosixPath], mounts: frozenset[Path]
) -> None:
    """Refuse a symbolic link, a mount point or a folder not in `holders` at `folder / inner`."""
    path = folder / inner
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return  # gone since it was listed
    if stat.S_ISLNK(info.st_mode):
        raise Refused(
            path,
            f"is a symbolic link inside {folder}: the report neither follows nor carries links; {_ANOTHER}",
        )
    if path in mounts or (stat.S_ISDIR(info.st_mode) and info.st_dev != os.lstat(folder).st_dev):
        raise Refused(path, f"is a mount point inside {folder}: the report never reaches into it; {_ANOTHER}")
    if stat.S_ISDIR(info.st_mode) and inner not in holders:
        own = ", ".join(f"{holder}/" for holder in sorted(holders)) or "none"
        raise Refused(path, f"is a folder pe-verify did not create (its own in {folder}: {own}); {_ANOTHER}")


def check(folder: Path, names: Iterable[str], ours: Ours, extras: Iterable[Path] = ()) -> None:
    """Refuse before any work: `Refused` for a folder that may not be published (see the module docstring),
    `ForeignFile` for an entry not ours where one of `names` (relative paths) goes, PermissionError when the
    folder (or the nearest existing ancestor), its parent or an extra file cannot be written."""
    folder, names = Path(folder).resolve(), list(names)
    _refuse_wide(folder)
    if folder.is_dir():
        mounts = _mount_points()
        if folder in mounts or os.path.ismount(folder):
            raise Refused(
                folder, "is a mount point: the report replaces its folder by a rename; choose one inside it"
            )
        _require_writable(folder)
        _require_writable(folder.parent)
        for name in names:
            relative = PurePosixPath(name)
            for depth in range(1, len(relative.parts)):
                enclosing = folder.joinpath(*relative.parts[:depth])
                if enclosing.is_symlink() or (enclosing.exists() and not enclosing.is_dir()):
                    raise ForeignFile(enclosing)
            path = folder / relative
            if (path.is_symlink() or path.exists()) and not ours(relative, path):
                raise ForeignFile(path)
        holders = _holders(names)
        for path in [folder, *(folder / holder for holder in sorted(holders))]:
            if path.is_dir():
                for entry in sorted(os.listdir(path)):
                    _refuse_entry(folder, PurePosixPath((path / entry).relative_to(folder)), holders, mounts)
    elif os.path.lexists(folder):
        raise Refused(folder, "is not a folder")
    else:
        ancestor = folder.parent
        while not os.path.lexists(ancestor):
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise Refused(ancestor, f"is not a folder, so {folder} cannot be made in it")
        _require_writable(ancestor)
    for extra in extras:
        _require_writable(Path(extra).absolute().parent)
        if Path(extra).exists():
            _require_writable(Path(extra))


def publish(
    folder: Path, files: Mapping[str, bytes], ours: Ours, extras: Mapping[Path, bytes] | None = None
) -> list[Path]:
    """Replace `folder`'s files of ours by `files` (relative path → bytes) and each extra file by its bytes,
    all at once (see the module docstring). Returns the paths written in `folder`."""
    given = Path(folder)
    folder = given.resolve()
    extras = {Path(path).resolve(): data for path, data in (extras or {}).items()}
    check(folder, files, ours, extras)
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(folder)
    with _sibling(folder) as sibling:
        new = sibling / "new"
        new.mkdir()
        existed = folder.is_dir()
        if existed:
            _carry(folder, new, files, ours)
            shutil.copymode(folder, new)
        for name, data in files.items():
            _write(new / name, data)
        staged: dict[Path, Path] = {}
        try:
            for index, (target, data) in enumerate(extras.items()):
                staged[target] = _stage(sibling, index, target, data)
            _commit(folder, new, existed, staged)
        finally:
            for copy in staged.values():
                with contextlib.suppress(FileNotFoundError):
                    copy.unlink()
    return [given / name for name in files]


def _commit(folder: Path, new: Path, existed: bool, staged: Mapping[Path, Path]) -> None:
    """Swap the new folder in, then replace the extras; undo the swap if an extra cannot be replaced."""
    if existed:
        _exchange(new, folder)
    else:
        os.rename(new, folder)
    try:
        for target, copy in staged.items():
            os.replace(copy, target)
    except BaseException:
        if existed:
            _exchange(new, folder)
        else:
            os.rename(folder, new)
        raise


@contextlib.contextmanager
def _sibling(folder: Path) -> Iterator[Path]:
    """A fresh locked sibling of `folder`, removed on the way out whatever happened."""
    sibling = Path(tempfile.mkdtemp(prefix=_sibling_prefix(folder), dir=folder.parent))
    try:
        lock = os.open(sibling / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            yield sibling
        finally:
            os.close(lock)
    finally:
        shutil.rmtree(sibling, ignore_errors=True)


def remove_abandoned(folder: Path) -> None:
    """Remove the siblings of `folder` that a killed run left (their lock is free)."""
    for path in Path(folder).parent.glob(glob.escape(_sibling_prefix(Path(folder))) + "*"):
        if path.is_symlink() or not path.is_dir():
            continue
        try:
            lock = os.open(path / "lock", os.O_RDWR)
        except FileNotFoundError:
            if time.time() - path.stat().st_mtime > ABANDONED_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # another run is using it
        finally:
            os.close(lock)
        shutil.rmtree(path, ignore_errors=True)


def _carry(
    folder: Path,
    new: Path,
    files: Mapping[str, bytes],
    ours: Ours,
    relative: PurePosixPath = _TOP,
) -> None:
    """Link into `new` every file of `folder` that is not ours, descending into the folders that hold new
    files; a link, a mount point or another folder (one that appeared after `check`) is refused."""
    holders = _holders(files)
    for name in sorted(os.listdir(folder / relative)):
        inner = relative / name
        path = folder / inner
        _refuse_entry(folder, inner, holders, frozenset())
        if str(inner) in files or ours(inner, path):
            continue
        if path.is_dir():
            (new / inner).mkdir()
            shutil.copymode(path, new / inner)
            _carry(folder, new, files, ours, inner)
        else:
            _link_or_copy(path, new / inner)


def _link_or_copy(source: str | Path, destination: str | Path) -> None:
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, destination, follow_symlinks=False)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


def _stage(sibling: Path, index: int, target: Path, data: bytes) -> Path:
    """A copy of `data` from which `target` is replaced: in the sibling, or beside the target when it lives
    on another file system (a rename cannot cross file systems)."""
    place = sibling if os.stat(sibling).st_dev == os.stat(target.parent).st_dev else target.parent
    copy = place / f".extra-{index}-{target.name}.pe-verify"
    _write(copy, data)
    if target.exists():
        shutil.copymode(target, copy)
    return copy


def _exchange(first: Path, second: Path) -> None:
    """Swap two folders: atomically where the system can (Linux renameat2), else by two renames."""
    renameat2 = getattr(_LIBC, "renameat2", None)
    if renameat2 is not None:
        if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
            return
        code = ctypes.get_errno()
        if code not in _NO_EXCHANGE:
            raise OSError(code, os.strerror(code), str(second))
    _exchange_by_renames(first, second)


def _exchange_by_renames(first: Path, second: Path) -> None:
    aside = first.with_name(f"{first.name}-aside")
    os.rename(second, aside)
    try:
        os.rename(first, second)
    except BaseException:
        os.rename(aside, second)
        raise
    os.rename(aside, first)
