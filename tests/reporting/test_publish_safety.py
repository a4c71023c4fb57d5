"""Publishing never deletes what it did not write, and `report` refuses before any claim is assessed.

A mount point, a symbolic link or a folder the report did not create inside `--out`, an empty or `/`-like
`--out`, an `--out` under a regular file and a file of the user's where a figure goes are refused with exit 2
while the assessment is forbidden (it raises if called). Removing the old folder and cleaning up after a
killed run touch only files of ours, links to files still in the folder, and files the run recorded making;
a file added to the folder while publishing is moved into the new one or kept and named; no copy of
`--readme` is left beside it after a failure or a kill. Tests that need a tmpfs skip when mounting is not
permitted and always unmount.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from pe_verify import cli
from pe_verify.claims import catalog
from pe_verify.claims.model import EXACT, PROVED, Assessment, Evidence, Source, claim
from pe_verify.reporting import publish, report

#: What the files of ours start with: the report's marker line, so that `report` counts the pages as its own.
OURS = report.MARKER.encode() + b"\n"
FILES = {"README.md": OURS + b"new readme", "figures/a.png": OURS + b"new a"}


def ours(relative: PurePosixPath, path: Path) -> bool:
    """The rule of these tests: a regular file whose bytes start with OURS."""
    return not path.is_symlink() and path.is_file() and path.read_bytes().startswith(OURS)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (hidden siblings are beside it, not below), relative path → bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def siblings(folder: Path) -> list[Path]:
    return sorted(folder.parent.glob(f".{folder.name}.pe-verify-*"))


def old_report(folder: Path, **mine: bytes) -> None:
    """A report of ours in `folder`, with the user's own files `mine` (relative path → bytes) beside it."""
    (folder / "figures").mkdir(parents=True)
    (folder / "README.md").write_bytes(OURS + b"old readme")
    (folder / "figures" / "a.png").write_bytes(OURS + b"old a")
    (folder / "figures" / "stale.png").write_bytes(OURS + b"stale")
    for name, data in mine.items():
        (folder / name).write_bytes(data)


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    """A tmpfs mounted at `where` for the block (the test skips when mounting is not permitted)."""
    where.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "none", str(where)], capture_output=True, text=True
        )
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


# ------------------------------------------------------------------------------------ refused before work


@claim(id="T.1", source=Source("000_fake.txt", "a section"), statement="One.", formal="x", expected=PROVED)
def t_1() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact.")


@pytest.fixture
def no_assessment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-claim catalog whose assessment and rendering raise: a refusal must come before either."""

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the claims were assessed before the refusal")

    monkeypatch.setattr(catalog, "all_claims", lambda: (t_1,))
    monkeypatch.setattr(catalog, "assessment", forbidden)
    monkeypatch.setattr(report, "render_reports", forbidden)


def refused(capsys: pytest.CaptureFixture[str], out: str, *more: str) -> str:
    """The one-line error of `report --out out`, which must exit 2 without writing anything."""
    status = cli.main(["report", "--out", out, *more])
    written, err = capsys.readouterr()
    assert (status, written, err.count("\n")) == (2, "", 1), err
    return err


def test_a_filesystem_mounted_inside_out_is_refused_and_left_as_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_assessment: None
) -> None:
    out = tmp_path / "rep"
    old_report(out)
    with tmpfs(out / "data") as data:
        (data / "measurements.csv").write_bytes(b"1,2\n")
        assert f"{data} is a mount point" in refused(capsys, str(out))
        with pytest.raises(publish.Refused, match="is a mount point"):
            publish.publish(out, FILES, ours)
        assert (data / "measurements.csv").read_bytes() == b"1,2\n" and not siblings(out)


def test_out_itself_as_a_mount_point_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_assessment: None
) -> None:
    with tmpfs(tmp_path / "rep") as out:
        assert f"{out} is a mount point" in refused(capsys, str(out))


@pytest.mark.parametrize("where", ["link", "figures/link", "file-link", "data", "figures/old"])
def test_a_link_or_a_folder_the_report_did_not_create_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_assessment: None, where: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_bytes(b"mine")
    out = tmp_path / "rep"
    old_report(out)
    path = out / where
    if where.endswith("file-link"):
        path.symlink_to(elsewhere / "precious.txt")
    elif where.endswith("link"):
        path.symlink_to(elsewhere)
    else:
        path.mkdir()
        (path / "precious.txt").write_bytes(b"mine")
    kind = "symbolic link" if "link" in where else "folder pe-verify did not create"
    assert f"{path} is a {kind}" in refused(capsys, str(out))
    with pytest.raises(publish.Refused, match=kind):
        publish.publish(out, FILES, ours)
    assert (elsewhere / "precious.txt").read_bytes() == b"mine" and not siblings(out)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
def test_a_folder_nothing_can_be_made_in_is_found_before_the_claims_are_assessed(
    capsys: pytest.CaptureFixture[str], no_assessment: None
) -> None:
    """/proc: its permission bits let root write, but no folder can be made there."""
    status = cli.main(["report", "--out", "/proc/pe-verify-reports"])
    _, err = capsys.readouterr()
    assert status == 3 and err.count("\n") == 1 and "nothing was written: /proc" in err


def test_the_users_files_in_figures_are_still_carried(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"mine", "figures/photo.png": b"my photo"})
    publish.publish(out, FILES, ours)
    assert tree(out) == FILES | {"notes.md": b"mine", "figures/photo.png": b"my photo"} and not siblings(out)


def test_an_empty_out_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_assessment: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.txt").write_bytes(b"mine")
    assert "--out is empty" in refused(capsys, "")
    assert "--out is empty" in refused(capsys, "  ")
    assert [path.name for path in tmp_path.iterdir()] == ["mine.txt"]


def test_the_root_or_home_folder_as_out_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_assessment: None
) -> None:
    home = tmp_path / "home" / "user"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert "/ is the root folder" in refused(capsys, "/")
    assert f"{home} is your home folder" in refused(capsys, str(home / "sub" / ".."))
    assert f"{home.parent} holds your home folder" in refused(capsys, str(home.parent))
    with pytest.raises(publish.Refused, match="is your home folder"):
        publish.publish(home, FILES, ours)
    assert list(home.iterdir()) == []


def test_out_under_a_regular_file_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_assessment: None
) -> None:
    (tmp_path / "somefile").write_bytes(b"mine")
    err = refused(capsys, str(tmp_path / "somefile" / "rep"))
    assert f"{tmp_path / 'somefile'} is not a folder" in err
    assert (tmp_path / "somefile").read_bytes() == b"mine"


def test_a_users_png_where_a_figure_goes_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_assessment: None
) -> None:
    out = tmp_path / "rep"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "wavelengths.png").write_bytes(b"\x89PNG my own")
    err = refused(capsys, str(out))
    assert f"{out / 'figures' / 'wavelengths.png'} was not written by pe-verify" in err


# ---------------------------------------------------------------------------- removing the old folder


def during_swap(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """Run `change()` after the carry, just before the folders are swapped."""
    real = publish._exchange

    def exchange(first: Path, second: Path) -> None:
        change()
        real(first, second)

    monkeypatch.setattr(publish, "_exchange", exchange)


def test_a_file_added_while_publishing_is_moved_into_the_new_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"mine"})
    during_swap(monkeypatch, lambda: (out / "late.md").write_bytes(b"added late"))
    notices: list[str] = []
    publish.publish(out, FILES, ours, notice=notices.append)
    assert tree(out) == FILES | {"notes.md": b"mine", "late.md": b"added late"}
    assert not siblings(out) and notices == []


def test_a_file_replaced_while_publishing_is_kept_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"older"})

    def replace() -> None:
        (out / "notes.tmp").write_bytes(b"newer")
        os.replace(out / "notes.tmp", out / "notes.md")
        (out / "README.md").write_bytes(b"my own readme now")

    during_swap(monkeypatch, replace)
    notices: list[str] = []
    publish.publish(out, FILES, ours, notice=notices.append)
    assert tree(out) == FILES | {"notes.md": b"older"}
    [sibling] = siblings(out)
    kept = {path.name: path.read_bytes() for path in sibling.rglob("*") if path.is_file()}
    assert kept.pop("lock") is not None and kept == {"notes.md": b"newer", "README.md": b"my own readme now"}
    assert len(notices) == 2 and all(f"kept {sibling}" in line for line in notices)
    notices.clear()
    monkeypatch.undo()
    publish.publish(out, FILES, ours, notice=notices.append)  # a later run keeps them too, and says so
    assert siblings(out) == [sibling] and len(notices) == 2


def test_only_what_was_carried_or_is_ours_is_removed_from_the_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linking refused (copies instead): the originals go only because the new folder holds the same bytes."""
    monkeypatch.setattr(publish.os, "link", lambda *args, **kwargs: (_ for _ in ()).throw(OSError(1, "no")))
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"mine", "figures/photo.png": b"my photo"})
    publish.publish(out, FILES, ours)
    assert tree(out) == FILES | {"notes.md": b"mine", "figures/photo.png": b"my photo"} and not siblings(out)


# ------------------------------------------------------------------------------- after a killed run

KILLED = """
import os, signal, sys
from pathlib import Path
from pe_verify.reporting import publish
out, where = Path(sys.argv[1]), sys.argv[2]
OURS = os.environ["OURS"].encode() + b"\\n"
def ours(relative, path):
    return not path.is_symlink() and path.is_file() and path.read_bytes().startswith(OURS)
def die():
    os.kill(os.getpid(), signal.SIGKILL)
real_write, real_exchange, real_rename = publish._write, publish._exchange, os.rename
def write(path, data):
    if where == "mid-write" and path.name == "a.png":
        path.write_bytes(data[:30])
        die()
    real_write(path, data)
def exchange(first, second):
    if where == "after-swap":
        (out / "late.md").write_bytes(b"added late")
        real_exchange(first, second)
        die()
    real_exchange(first, second)
renames = []
def rename(source, destination):
    renames.append(source)
    if where == "between-renames" and len(renames) == 2:
        die()
    real_rename(source, destination)
publish._write, publish._exchange = write, exchange
if where == "between-renames":
    publish._exchange, os.rename = publish._exchange_by_renames, rename
extras = {}
if len(sys.argv) > 3:
    extras = {Path(sys.argv[3]): b"new readme"}
    if where == "staging":
        def stage_write(path, data):
            if path.parent == Path(sys.argv[3]).parent:
                path.write_bytes(data[:3])
                die()
            real_write(path, data)
        publish._write = stage_write
publish.publish(out, {"README.md": OURS + b"new readme", "figures/a.png": OURS + b"new a"}, ours, extras)
"""


def killed(out: Path, where: str, *more: Path) -> None:
    """Publish FILES into `out` in another process, killed at `where`."""
    command = [sys.executable, "-c", KILLED, str(out), where, *map(str, more)]
    done = subprocess.run(command, check=False, env=dict(os.environ, OURS=report.MARKER))
    assert done.returncode == -signal.SIGKILL


@pytest.mark.slow
@pytest.mark.parametrize("where", ["mid-write", "after-swap", "between-renames"])
def test_the_next_run_cleans_up_a_killed_run_and_loses_nothing(tmp_path: Path, where: str) -> None:
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"mine", "figures/photo.png": b"my photo"})
    killed(out, where)
    assert len(siblings(out)) == 1
    notices: list[str] = []
    publish.publish(out, FILES, ours, notice=notices.append)
    mine = {"notes.md": b"mine", "figures/photo.png": b"my photo"}
    late = {"late.md": b"added late"} if where == "after-swap" else {}
    assert tree(out) == FILES | mine | late and not siblings(out) and notices == []


def test_an_abandoned_sibling_keeps_what_no_run_of_ours_put_there(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    old_report(out, **{"notes.md": b"mine"})
    sibling = tmp_path / ".rep.pe-verify-abandoned"
    (sibling / "new" / "figures").mkdir(parents=True)
    (sibling / "lock").touch()
    (sibling / "new" / "figures" / "a.png").write_bytes(OURS + b"a")
    os.link(out / "notes.md", sibling / "new" / "notes.md")
    (sibling / "new" / "unknown.md").write_bytes(b"whose?")
    (sibling / "stray.txt").write_bytes(b"whose too?")
    notices: list[str] = []
    publish.remove_abandoned(out, ours, notices.append)
    left = sorted(str(path.relative_to(sibling)) for path in sibling.rglob("*") if path.is_file())
    assert left == ["lock", "new/unknown.md", "stray.txt"] and (out / "notes.md").read_bytes() == b"mine"
    assert [line.split(":")[0] for line in sorted(notices)] == [
        f"kept {sibling / 'new' / 'unknown.md'}",
        f"kept {sibling / 'stray.txt'}",
    ]


def test_a_sibling_in_use_is_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    with publish._sibling(out, ours, print) as run:
        (run.sibling / "new").mkdir()
        publish.remove_abandoned(out, ours, print)
        assert (run.sibling / "new").is_dir()
    assert not run.sibling.exists()


# ----------------------------------------------------------------------------------- beside --readme


def test_no_copy_is_left_beside_the_readme_when_its_disk_is_full(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    with tmpfs(tmp_path / "other", size="64k") as other:
        readme = other / "README.md"
        readme.write_bytes(b"old readme")
        with contextlib.suppress(OSError), (other / "filler").open("wb") as stream:
            while True:
                stream.write(b"\0" * 4096)
                stream.flush()
        with pytest.raises(OSError, match="No space left"):
            publish.publish(out, FILES, ours, {readme: b"new readme " * 10_000})
        assert sorted(path.name for path in other.iterdir()) == ["README.md", "filler"]
        assert readme.read_bytes() == b"old readme" and not out.exists() and not siblings(out)


@pytest.mark.slow
def test_a_copy_a_killed_run_left_beside_the_readme_is_removed_by_the_next(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    old_report(out)
    with tmpfs(tmp_path / "other") as other:
        readme = other / "README.md"
        readme.write_bytes(b"old readme")
        mine = other / ".README.md.pe-verify-lookalike.0"
        mine.write_bytes(b"a file of the user's with a name like ours")
        killed(out, "staging", readme)
        assert len(list(other.iterdir())) == 3
        publish.publish(out, FILES, ours)  # without the README: its run's record alone finds the copy
        assert sorted(path.name for path in other.iterdir()) == [mine.name, "README.md"]
        assert readme.read_bytes() == b"old readme" and not siblings(out)
