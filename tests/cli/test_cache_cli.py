"""The results cache of `list` and `show`, and progress on stderr, on a two-claim fake catalog.

A second run answers from the cache without assessing anything; the key changes with any source file or
dependency version; --fresh neither reads nor writes it; a corrupt or unreadable cache is rebuilt, and so is
one that does not validate (wrong types, unknown verdicts or ids, parts that disagree, too deep, too large, a
FIFO or a device), none of whose verdicts is read. Progress appears only when stderr is a terminal, and never
with --quiet.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pe_verify import cache, cli
from pe_verify.claims import catalog
from pe_verify.claims.model import EXACT, PROVED, REFUTES, Assessment, Evidence, Source, claim


@claim(id="T.1", source=Source("000_fake.txt", "a section"), statement="One.", formal="x", expected=PROVED)
def t_1() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact.")


@claim(id="T.2", source=Source("general", "x"), statement="Two.", formal="y", expected=PROVED)
def t_2() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact too.")


BY_ID = {item.id: item for item in (t_1, t_2)}
CHANGED = Assessment((Evidence(EXACT, "a counterexample", True, REFUTES),), "Changed.")


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache and the fake catalog; `assessed` records every claim assessed."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENVIRONMENT, str(folder))
    monkeypatch.setattr(catalog, "all_claims", lambda: tuple(BY_ID.values()))
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: BY_ID[claim_id].assess())
    return folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _assessments_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    def assessment(claim_id: str) -> Assessment:
        raise AssertionError(f"{claim_id} was assessed")

    monkeypatch.setattr(catalog, "assessment", assessment)
    monkeypatch.setattr(catalog, "all_claims", assessment)


def test_a_second_list_answers_from_the_cache(capsys, cache_folder: Path, monkeypatch) -> None:
    first = _run(capsys, "list")
    assert first[0] == 0 and "T.1" in first[1] and "T.2" in first[1]
    _assessments_fail(monkeypatch)
    assert _run(capsys, "list") == first
    status, out, _ = _run(capsys, "show", "t.2", "--json")
    assert status == 0 and json.loads(out)["claim"]["explanation"] == "Exact too."
    monkeypatch.setattr(catalog, "all_claims", lambda: tuple(BY_ID.values()))
    status, _, err = _run(capsys, "show", "T.3")  # an id the cache lacks is looked up in the catalog's ids
    assert status == 2 and "did you mean one of T.2, T.1?" in err


def test_show_stores_what_it_computed(capsys, cache_folder: Path, monkeypatch) -> None:
    shown = _run(capsys, "show", "T.1")
    _assessments_fail(monkeypatch)
    assert _run(capsys, "show", "T.1") == shown


def test_fresh_neither_reads_nor_writes_the_cache(capsys, cache_folder: Path, monkeypatch) -> None:
    assert _run(capsys, "list")[0] == 0
    stored = {path.name: path.read_bytes() for path in cache_folder.iterdir()}
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: CHANGED)
    status, _, err = _run(capsys, "list", "--fresh")
    assert status == 1 and "verdict changed: T.1: computed refuted" in err
    assert {path.name: path.read_bytes() for path in cache_folder.iterdir()} == stored
    assert _run(capsys, "list")[0] == 0


def test_the_key_changes_with_any_source_file_or_dependency(tmp_path: Path, monkeypatch) -> None:
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(cache, "source_files", lambda: [("module.py", source)])
    before = cache.key()
    source.write_text("x = 2\n")
    edited = cache.key()
    monkeypatch.setattr(cache.importlib.metadata, "version", lambda name: "0.0.1")
    assert len({before, edited, cache.key()}) == 3


def test_the_sources_hashed_are_the_whole_package() -> None:
    """Subfolders too (a module moved into one must still change the key), and data files."""
    names = {label for label, _ in cache.source_files()}
    assert {
        "pe_verify/cli.py",
        "claims/catalog.py",
        "proofs/uniqueness.py",
        "properties/encodings/sinusoidal.py",
        "properties/battery/families/rope.py",
        "claims/data/base_bound/L32768.txt.gz",
    } <= names
    assert not any("__pycache__" in name for name in names)


def test_results_of_an_older_key_are_never_read(capsys, cache_folder: Path, monkeypatch) -> None:
    assert _run(capsys, "list")[0] == 0
    monkeypatch.setattr(cache, "key", lambda: "another key")
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: CHANGED)
    assert _run(capsys, "list")[0] == 1
    assert [path.name for path in cache_folder.iterdir()] == ["results-another key.json"]


@pytest.mark.slow
@pytest.mark.parametrize("content", [b"not json", b'{"claims": 3}', b"\xff\xfe", b'{"key": null}'])
def test_a_corrupt_cache_is_ignored_and_rebuilt(capsys, cache_folder: Path, content: bytes) -> None:
    fresh = _run(capsys, "list")
    [stored] = cache_folder.iterdir()
    stored.write_bytes(content)
    assert _run(capsys, "list") == fresh
    assert json.loads(stored.read_bytes())["claims"].keys() == {"T.1", "T.2"}


def test_an_unusable_cache_folder_changes_nothing(
    capsys, tmp_path: Path, cache_folder: Path, monkeypatch
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("x")
    monkeypatch.setenv(cache.ENVIRONMENT, str(blocker / "cache"))
    status, out, err = _run(capsys, "list")
    assert status == 0 and "T.1" in out and err == ""


def test_the_default_folder_is_the_users_cache_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(cache.ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert cache.directory() == tmp_path / "pe-verify"
    monkeypatch.setenv(cache.ENVIRONMENT, str(tmp_path / "mine"))
    assert cache.directory() == tmp_path / "mine"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("terminal", "quiet", "shown"), [(True, False, True), (True, True, False), (False, False, False)]
)
def test_progress_appears_only_on_a_terminal_and_never_with_quiet(
    cache_folder: Path, monkeypatch, terminal: bool, quiet: bool, shown: bool
) -> None:
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert cli.main(["list", "--fresh", *(["--quiet"] if quiet else [])]) == 0
    assert ("assessing claims" in stderr.getvalue() and "0/2" in stderr.getvalue()) is shown
    assert stderr.getvalue() == "" or shown


def _stored_file(folder: Path) -> Path:
    [path] = folder.glob("results-*.json")
    return path


def _verdict_as_list(data: dict) -> None:
    data["claims"]["T.1"]["row"]["verdict"] = ["proved"]


def _unknown_verdict(data: dict) -> None:
    data["claims"]["T.1"]["row"]["verdict"] = "proved beyond doubt"


def _refuted_but_unchanged(data: dict) -> None:
    record = data["claims"]["T.1"]
    record["row"]["verdict"] = record["show"]["verdict"] = "refuted"


def _row_of_another_claim(data: dict) -> None:
    data["claims"]["T.1"]["row"] = data["claims"]["T.2"]["row"]


def _extra_field(data: dict) -> None:
    data["claims"]["T.1"]["row"]["note"] = "unexpected"


def _ids_as_text(data: dict) -> None:
    data["ids"] = "T.1,T.2"


@pytest.mark.slow
@pytest.mark.parametrize(
    "corrupt",
    [
        _verdict_as_list,
        _unknown_verdict,
        _refuted_but_unchanged,
        _row_of_another_claim,
        _extra_field,
        _ids_as_text,
    ],
)
def test_a_record_that_does_not_validate_is_never_read(capsys, cache_folder: Path, corrupt) -> None:
    fresh = _run(capsys, "list", "--json")
    path = _stored_file(cache_folder)
    data = json.loads(path.read_text(encoding="utf-8"))
    corrupt(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _run(capsys, "list", "--json") == fresh
    assert cache.load(cache.key()) is not None


def test_a_record_filed_under_an_id_not_listed_makes_the_file_corrupt(capsys, cache_folder: Path) -> None:
    assert _run(capsys, "list")[0] == 0
    path = _stored_file(cache_folder)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"]["T.9"] = data["claims"]["T.1"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert cache.load(cache.key()) is None


def test_ids_that_are_not_the_catalogs_are_caught_when_the_catalog_is_read(
    capsys, cache_folder: Path
) -> None:
    assert _run(capsys, "list")[0] == 0
    path = _stored_file(cache_folder)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["ids"] = ["T.1", "T.9"]
    del data["claims"]["T.2"]
    path.write_text(json.dumps(data), encoding="utf-8")
    status, out, _ = _run(capsys, "show", "T.2", "--json")
    assert status == 0 and json.loads(out)["claim"]["id"] == "T.2"
    assert _run(capsys, "list")[1].split() == _run(capsys, "list", "--fresh")[1].split()


def test_a_nesting_too_deep_to_parse_is_rebuilt(capsys, cache_folder: Path) -> None:
    fresh = _run(capsys, "list")
    _stored_file(cache_folder).write_text("[" * 200_000 + "]" * 200_000)
    assert _run(capsys, "list") == fresh


@contextlib.contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging) when the block runs longer than `seconds`."""

    def expire(signum: int, frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_fifo_or_a_device_in_place_of_the_file_is_never_opened_for_reading(
    capsys, cache_folder: Path
) -> None:
    fresh = _run(capsys, "list")
    path = _stored_file(cache_folder)
    path.unlink()
    os.mkfifo(path)
    with _within(5):
        assert _run(capsys, "list") == fresh
    assert path.is_file()
    path.unlink()
    path.symlink_to("/dev/zero")
    with _within(5):
        assert _run(capsys, "list") == fresh
    assert path.is_file() and not path.is_symlink()


def test_a_file_beyond_the_size_limit_is_not_read(capsys, cache_folder: Path, monkeypatch) -> None:
    fresh = _run(capsys, "list")
    path = _stored_file(cache_folder)
    monkeypatch.setattr(cache, "MAX_BYTES", path.stat().st_size - 1)
    assert cache.load(cache.key()) is None
    monkeypatch.setattr(cache, "MAX_BYTES", path.stat().st_size)
    assert cache.load(cache.key()).ids == ["T.1", "T.2"]
    assert _run(capsys, "list") == fresh
