"""Publish a folder of generated files all at once, never overwriting or removing a file we did not write.

`publish(folder, files, ours, extras)` builds the new folder in a hidden sibling `.NAME.pe-verify-XXXXXXXX`:
the new files, plus a hard link (a copy where linking is refused) of every file of the old folder that is not
ours. It swaps the two folders in one step (`renameat2(RENAME_EXCHANGE)` on Linux, elsewhere two renames),
replaces each extra file (the README whose headline table is refreshed) from a staged copy, and clears the
sibling. A failure or a kill before the swap leaves the old folder; after it, the new one; never a mix. If an
extra cannot be replaced the swap is undone. Besides files, the folder may hold only the folders that enclose
one of `files` (for the reports: figures/), the only folders counted as publishing's own: a symbolic link, a
mount point or any other folder inside it is refused (`Refused`), as are the root folder, the home folder or
an ancestor of it, and a path under a regular file. `check` refuses all that, and what cannot be written,
before any work.

Nothing is removed wholesale: the sibling's lock file records each file the run makes before making it, and
clearing a sibling (`_clear`, also for one a killed run left: its lock is free) removes only those, files of
ours, and files the folder still holds (same file or same bytes); what a user added meanwhile is moved into
the folder or kept and named through `notice`. Which files are ours is the caller's rule, `ours(relative,
path)` (for the reports: pages whose first line is the report's marker, PNGs in figures/ with their marker).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import filecmp
import glob
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

Ours = Callable[[PurePosixPath, Path], bool]
Notice = Callable[[str], None]

#: Siblings without a lock file (a run killed between creating and locking one) are removed after this.
ABANDONED_SECONDS = 600

_NEW, _ASIDE, _LOCK = "new", "new-aside", "lock"
_TOP = PurePosixPath()
_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP)
_LIBC = ctypes.CDLL(None, use_errno=True)
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


def _say(message: str) -> None:
    print(f"pe-verify: {message}", file=sys.stderr)


def _sibling_prefix(folder: Path) -> str:
    return f".{folder.name}.pe-verify-"


def _token(sibling: Path) -> str:
    """The random part of a sibling's name, which also names its staged copies of extras."""
    return sibling.name.rsplit(".pe-verify-", 1)[1]


def _require_writable(path: Path) -> None:
    """PermissionError unless `path` can be written; a folder is tried by making (and removing) an empty
    folder in it, since the permission bits do not tell for root, /proc or a read-only mount."""
    if not os.access(path, os.W_OK | os.X_OK if path.is_dir() else os.W_OK):
        raise PermissionError(errno.EACCES, "not writable, so nothing was written", str(path))
    if path.is_dir():
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".pe-verify-probe-", dir=path))
        except OSError as exc:
            raise PermissionError(exc.errno, f"{exc.strerror}, so nothing was written", str(path)) from None


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
    folder: Path,
    files: Mapping[str, bytes],
    ours: Ours,
    extras: Mapping[Path, bytes] | None = None,
    notice: Notice = _say,
) -> list[Path]:
    """Replace `folder`'s files of ours by `files` (relative path → bytes) and each extra file by its bytes,
    all at once (see the module docstring); `notice` hears of what a user added meanwhile that had to be kept
    apart. Returns the paths written in `folder`."""
    given = Path(folder)
    folder = given.resolve()
    extras = {Path(path).resolve(): data for path, data in (extras or {}).items()}
    remove_abandoned(folder, ours, notice)  # first: it may put back a folder a killed run left aside
    check(folder, files, ours, extras)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _sibling(folder, ours, notice) as run:
        new = run.sibling / _NEW
        new.mkdir()
        run.record("tree", new.lstat().st_ino)
        existed = folder.is_dir()
        if existed:
            _carry(folder, new, files, ours, run)
            shutil.copymode(folder, new)
        for name, data in files.items():
            run.record("file", name)
            _write(new / name, data)
        staged: dict[Path, Path] = {}
        try:
            for index, (target, data) in enumerate(extras.items()):
                _stage(run, index, target, data, staged)
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


@dataclass(frozen=True)
class _Run:
    """A locked sibling; its lock file records what the run makes, each entry before the thing is made."""

    sibling: Path
    lock: int

    def record(self, kind: str, value: str | int) -> None:
        os.write(self.lock, (json.dumps([kind, value]) + "\n").encode())


@contextlib.contextmanager
def _sibling(folder: Path, ours: Ours, notice: Notice) -> Iterator[_Run]:
    """A fresh locked sibling of `folder`, cleared on the way out whatever happened."""
    sibling = Path(tempfile.mkdtemp(prefix=_sibling_prefix(folder), dir=folder.parent))
    try:
        lock = os.open(sibling / _LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except BaseException:
        os.rmdir(sibling)
        raise
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield _Run(sibling, lock)
    finally:
        try:
            _clear(sibling, folder, ours, notice)
        finally:
            os.close(lock)


def remove_abandoned(folder: Path, ours: Ours, notice: Notice = _say) -> None:
    """Clear the siblings of `folder` that killed runs left (their lock is free), as `_clear` does."""
    folder = Path(folder)
    for path in folder.parent.glob(glob.escape(_sibling_prefix(folder)) + "*"):
        if path.is_symlink() or not path.is_dir():
            continue
        try:
            lock = os.open(path / _LOCK, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > ABANDONED_SECONDS:
                    path.rmdir()  # never locked, so never used: empty unless someone else wrote there
            continue
        except OSError:
            continue  # not a lock of ours
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            continue  # another run is using it
        try:
            _clear(path, folder, ours, notice)
        finally:
            os.close(lock)


def _recorded(lock: Path) -> tuple[int | None, frozenset[str], list[Path]]:
    """What a run's lock file records: the inode of the folder it made, the files it made there (relative
    paths) and its staged copies of extras. A line cut short by a kill is ignored (its thing was not made)."""
    tree, made, copies = None, set(), []
    for line in lock.read_bytes().splitlines():
        with contextlib.suppress(ValueError, TypeError):
            kind, value = json.loads(line)
            if kind == "tree":
                tree = value
            elif kind == "file":
                made.add(value)
            elif kind == "copy":
                copies.append(Path(value))
    return tree, frozenset(made), copies


def _clear(sibling: Path, folder: Path, ours: Ours, notice: Notice) -> None:
    """Remove from `sibling` (whose lock the caller holds) what a run of ours put there, file by file, each
    checked just before; move into `folder` what a user added to the old folder meanwhile; keep the rest and
    name it through `notice` (the sibling then stays, and a later run tries again)."""
    lock = sibling / _LOCK
    tree, made, copies = _recorded(lock)
    trees = [sibling / _NEW, sibling / _ASIDE]
    if not os.path.lexists(folder) and tree is not None:  # killed between the two renames of an exchange
        for path in trees:
            if _is_dir(path) and path.lstat().st_ino != tree:
                with contextlib.suppress(OSError):
                    os.rename(path, folder)
                break
    kept: list[Path] = []
    mounts = _mount_points()
    for path in trees:
        if not os.path.lexists(path):
            continue
        if tree is None:  # no record (a run killed before making anything): only what is safe anyway
            _clear_tree(path, folder, ours, frozenset(), kept, mounts)
        else:
            _clear_tree(path, folder, ours, made if path.lstat().st_ino == tree else None, kept, mounts)
    pattern = re.compile(rf"\..+\.pe-verify-{re.escape(_token(sibling))}\.\d+")
    for copy in copies:
        with contextlib.suppress(FileNotFoundError):
            if pattern.fullmatch(copy.name) and stat.S_ISREG(os.lstat(copy).st_mode):
                copy.unlink()
    left = sorted(path for path in sibling.iterdir() if path.name != _LOCK)
    kept += [path for path in left if path not in trees]
    for path in kept:
        notice(
            f"kept {path}: pe-verify did not write it and could not put it back in {folder}; move it yourself"
        )
    if not left:
        with contextlib.suppress(OSError):
            lock.unlink()
            sibling.rmdir()


def _is_dir(path: Path) -> bool:
    return os.path.lexists(path) and stat.S_ISDIR(os.lstat(path).st_mode)


def _clear_tree(
    tree: Path,
    folder: Path,
    ours: Ours,
    made: frozenset[str] | None,
    kept: list[Path],
    mounts: frozenset[Path],
) -> None:
    """Empty `tree` of what may go (`_removable`) and remove its empty folders, never entering a link or a
    mount point. `made` is what the run recorded making when `tree` is the folder it made; None when `tree` is
    the old folder, whose other entries are moved into `folder` where nothing of that name is."""
    if not _is_dir(tree):
        kept.append(tree)
        return
    device = tree.lstat().st_dev

    def clear(relative: PurePosixPath) -> None:
        for name in sorted(os.listdir(tree / relative)):
            inner = relative / name
            path, live = tree / inner, folder / inner
            try:
                info = os.lstat(path)
                folder_of_ours = info.st_dev == device and path not in mounts
                if stat.S_ISDIR(info.st_mode):
                    if folder_of_ours and (made is not None or _is_dir(live)):
                        clear(inner)
                        with contextlib.suppress(OSError):
                            path.rmdir()
                        continue
                elif _removable(inner, path, info, live, ours, made):
                    path.unlink()
                    continue
                if made is None and _move(path, live):
                    continue
            except OSError:
                pass
            kept.append(path)

    try:
        clear(_TOP)
    except OSError:
        kept.append(tree)
    with contextlib.suppress(OSError):
        tree.rmdir()


def _removable(
    inner: PurePosixPath,
    path: Path,
    info: os.stat_result,
    live: Path,
    ours: Ours,
    made: frozenset[str] | None,
) -> bool:
    """Whether the file `path` may go without losing anything of the user's: the run recorded making it,
    `live` (the same place in the folder) is the same file or a regular file with the same bytes, or it is
    ours."""
    regular = stat.S_ISREG(info.st_mode)
    if made is not None and regular and str(inner) in made:
        return True
    try:
        there = os.lstat(live)
    except FileNotFoundError:
        there = None
    if there is not None and (there.st_dev, there.st_ino) == (info.st_dev, info.st_ino):
        return True
    if ours(inner, path):
        return True
    same_size = there is not None and stat.S_ISREG(there.st_mode) and there.st_size == info.st_size
    return regular and same_size and filecmp.cmp(path, live, shallow=False)


def _carry(
    folder: Path,
    new: Path,
    files: Mapping[str, bytes],
    ours: Ours,
    run: _Run,
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
            _carry(folder, new, files, ours, run, inner)
        else:
            run.record("file", str(inner))
            _link_or_copy(path, new / inner)


def _link_or_copy(source: Path, destination: Path) -> None:
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:
        if not stat.S_ISREG(os.lstat(source).st_mode):
            raise  # a copy of a device or a pipe would read it
        shutil.copy2(source, destination, follow_symlinks=False)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("xb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


def _stage(run: _Run, index: int, target: Path, data: bytes, staged: dict[Path, Path]) -> None:
    """Stage in `staged` a copy of `data` from which `target` is replaced: in the sibling, or beside the
    target when it lives on another file system (a rename cannot cross them). The copy is recorded and staged
    before a byte is written, so that a failure now or a later run's cleanup removes it."""
    place = run.sibling if os.stat(run.sibling).st_dev == os.stat(target.parent).st_dev else target.parent
    copy = place / f".{target.name}.pe-verify-{_token(run.sibling)}.{index}"
    run.record("copy", str(copy))
    staged[target] = copy
    _write(copy, data)
    if target.exists():
        shutil.copymode(target, copy)


def _renameat2(first: Path, second: Path, flags: int) -> int:
    """0 when Linux `renameat2` did it, else the error number (one of `_NO_EXCHANGE` where it cannot)."""
    renameat2 = getattr(_LIBC, "renameat2", None)
    if renameat2 is None:
        return errno.ENOSYS
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), flags) == 0:
        return 0
    return ctypes.get_errno()


def _move(source: Path, destination: Path) -> bool:
    """Rename `source` to `destination` unless something is there (atomically where the system can)."""
    code = _renameat2(source, destination, _RENAME_NOREPLACE)
    if code not in _NO_EXCHANGE:
        return code == 0
    if os.path.lexists(destination):
        return False
    os.rename(source, destination)
    return True


def _exchange(first: Path, second: Path) -> None:
    """Swap two folders: atomically where the system can (Linux renameat2), else by two renames."""
    code = _renameat2(first, second, _RENAME_EXCHANGE)
    if code == 0:
        return
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
