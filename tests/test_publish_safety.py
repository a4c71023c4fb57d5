"""`report` refuses before any claim is assessed what publishing must not touch.

A mount point, a symbolic link or a folder the report did not create inside `--out`, an empty or `/`-like
`--out`, an `--out` under a regular file and a file of the user's where a figure goes are refused with exit 2
while the assessment is forbidden (it raises if called). Tests that need a tmpfs skip when mounting is not
permitted and always unmount.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from pe_verify import cli
from pe_verify.claims import catalog, publish, report
from pe_verify.claims.model import EXACT, PROVED, Assessment, Evidence, Source, claim

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
