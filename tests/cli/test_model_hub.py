"""`pe-verify model owner/name[@revision]`: a Hugging Face hub id, read from a hub cache laid out in a
temporary folder exactly as the library writes one (blobs/, snapshots/<commit>/config.json, refs/<name>).

Every test runs with HF_HUB_OFFLINE=1, the cache in its own temporary folder, and every socket refusing to
connect, so that nothing reaches the network and an attempt to would fail at once."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Callable
from pathlib import Path

import huggingface_hub
import huggingface_hub.constants  # read before any test sets HF_HUB_OFFLINE: the library reads it once
import huggingface_hub.utils
import pytest
from refusals import refused

from pe_verify import cli, hub, models
from pe_verify.properties.encodings.model_config import bundled_models

PHI2 = bundled_models()["phi-2"].config
MAIN = "0123456789abcdef0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"
FORMS = [[], ["--json"], ["--markdown"]]


class NetworkAttempt(OSError):
    """What a socket raises in these tests."""


@pytest.fixture(autouse=True)
def offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An empty hub cache (HF_HUB_CACHE, HF_HOME beside it), HF_HUB_OFFLINE=1, an empty working folder, and
    sockets that refuse at once; the list collects each attempt to connect."""
    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(repr(args[:2]))
        raise NetworkAttempt("no network in these tests")

    (tmp_path / "hub").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.chdir(tmp_path / "work")
    return attempts


def _cache(
    tmp_path: Path, repo_id: str, config: object, commit: str = MAIN, refs: tuple[str, ...] = ("main",)
) -> Path:
    """`config` as the hub cache holds a repository's config.json at `commit`, `refs` pointing to it."""
    repo = tmp_path / "hub" / ("models--" + repo_id.replace("/", "--"))
    data = json.dumps(config).encode()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git's id of the file, as the hub's
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (repo / "blobs" / blob).write_bytes(data)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    try:
        (snapshot / "config.json").symlink_to(Path("..", "..", "blobs", blob))
    except OSError:  # where no symlink can be made, the library copies the file
        (snapshot / "config.json").write_bytes(data)
    (repo / "refs").mkdir(exist_ok=True)
    for ref in refs:
        (repo / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (repo / "refs" / ref).write_text(commit)
    return snapshot / "config.json"


def _record(capsys: pytest.CaptureFixture[str], source: str) -> tuple[int, dict]:
    """The exit status and the --json record of `pe-verify model source`."""
    status = cli.main(["--quiet", "model", source, "--json", "--no-cross-check", "--context", "64"])
    assert status != cli.EXIT_USAGE
    return status, json.loads(capsys.readouterr().out)["model"]


def test_a_cached_hub_id_gives_the_record_of_its_file(tmp_path: Path, capsys, offline_hub: list[str]) -> None:
    cached = _cache(tmp_path, "microsoft/phi-2", PHI2)
    hub_status, from_hub = _record(capsys, "microsoft/phi-2")
    file_status, from_file = _record(capsys, str(cached))
    assert from_hub.pop("config") == f"microsoft/phi-2@{MAIN}"
    assert from_file.pop("config") == str(cached)
    assert (hub_status, from_hub) == (file_status, from_file)
    assert offline_hub == []


@pytest.mark.parametrize("form", FORMS)
def test_an_id_the_cache_lacks_offline_is_one_line(capsys, form: list[str], offline_hub: list[str]) -> None:
    err = refused(capsys, "meta-llama/Llama-3.1-8B", *form)
    assert "meta-llama/Llama-3.1-8B" in err and "local Hugging Face cache" in err
    assert "offline" in err and "name a config.json" in err
    assert offline_hub == []


def test_a_revision_picks_its_snapshot(tmp_path: Path, capsys) -> None:
    _cache(tmp_path, "owner/model", PHI2, MAIN)
    _cache(tmp_path, "owner/model", dict(PHI2, rope_theta=500000.0), OTHER, refs=("v2", "refs/pr/1"))
    for source, commit, theta in [
        ("owner/model", MAIN, 10000.0),
        ("owner/model@main", MAIN, 10000.0),
        (f"owner/model@{OTHER}", OTHER, 500000.0),
        ("owner/model@v2", OTHER, 500000.0),
        (f"owner/model@{MAIN}", MAIN, 10000.0),
    ]:
        config, name, cited = models.resolve(source)
        assert (config["rope_theta"], name, cited) == (theta, f"owner/model@{commit}", None)
    assert _record(capsys, "owner/model@v2")[1]["config"] == f"owner/model@{OTHER}"
    assert "owner/model@v3" in refused(capsys, "owner/model@v3")


def test_a_file_the_cache_records_absent_is_one_line(tmp_path: Path, capsys) -> None:
    repo = tmp_path / "hub" / "models--owner--tokenizer-only"
    (repo / ".no_exist" / MAIN).mkdir(parents=True)
    (repo / ".no_exist" / MAIN / "config.json").touch()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(MAIN)
    assert "has no config.json" in refused(capsys, "owner/tokenizer-only")


@pytest.mark.parametrize(
    "source",
    [
        "a/b/c",
        "owner/na me",
        "owner/.name",
        "owner/name-",
        "owner--x/name",
        "owner/name.git",
        "owner/na..me",
        "owner/name@",
        "owner/name@a..b",
        "/owner/name",
        "owner/" + "n" * 97,
        "ówner/name",
    ],
)
def test_what_is_no_hub_id_gets_the_filerefused(capsys, source: str, offline_hub: list[str]) -> None:
    assert hub.parse_hub_id(source) is None
    assert "is neither a file nor a folder (nor a bundled model's name)" in refused(capsys, source)
    assert offline_hub == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("meta-llama/Llama-3.1-8B", ("meta-llama/Llama-3.1-8B", None)),
        ("Qwen/Qwen2.5-7B-Instruct@refs/pr/1", ("Qwen/Qwen2.5-7B-Instruct", "refs/pr/1")),
        (f"openai-community/gpt2@{MAIN}", ("openai-community/gpt2", MAIN)),
        ("a_b/c.d@v1.0", ("a_b/c.d", "v1.0")),
    ],
)
def test_hub_ids(text: str, expected: tuple[str, str | None]) -> None:
    assert hub.parse_hub_id(text) == expected


def test_a_file_or_folder_of_that_name_comes_first(tmp_path: Path, capsys) -> None:
    _cache(tmp_path, "owner/model", dict(PHI2, rope_theta=500000.0))
    folder = Path("owner", "model")
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(PHI2), encoding="utf-8")
    config, name, _ = models.resolve("owner/model")
    assert config["rope_theta"] == 10000.0 and name == str(folder / "config.json")


def test_the_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert hub.cache_dir() == str(tmp_path / "hub")
    monkeypatch.delenv("HF_HUB_CACHE")
    assert hub.cache_dir() == str(tmp_path / "home" / "hub")
    assert hub.offline()


def _raising(error: type[BaseException]) -> Callable[..., None]:
    def request(*args: object, **kwargs: object) -> None:
        raise error.__new__(error)  # the library's own class, without the HTTP response it is built from

    return request


@pytest.mark.parametrize(
    ("error", "message"),
    [
        ("GatedRepoError", "is a gated repository on the Hugging Face hub"),
        ("RepositoryNotFoundError", "nor a model repository on the Hugging Face hub"),
        ("RevisionNotFoundError", "has no revision v9 on the Hugging Face hub"),
        ("EntryNotFoundError", "has no config.json on the Hugging Face hub"),
    ],
)
def test_what_the_hub_answers_is_one_line(
    capsys, monkeypatch: pytest.MonkeyPatch, error: str, message: str, offline_hub: list[str]
) -> None:
    monkeypatch.setattr(hub, "offline", lambda: False)
    monkeypatch.setattr(hub, "_probe", lambda url: None)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", _raising(getattr(huggingface_hub.utils, error)))
    assert message in refused(capsys, "owner/model@v9")
    assert offline_hub == []


def test_no_connection_fails_at_once(offline_hub: list[str]) -> None:
    """Online (as without HF_HUB_OFFLINE) with the sockets refusing: one line, at the first refusal."""
    with pytest.raises(
        hub.HubError, match=r"^owner/model is neither .* the hub cannot be reached \("
    ) as caught:
        hub.hub_config("owner/model", no_network=False)
    assert "\n" not in str(caught.value) and offline_hub
