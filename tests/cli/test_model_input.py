"""`pe-verify model` on hostile config files: nesting past any use (or past Python's recursion limit), lone
surrogates, numbers no float holds, unreadable paths. Each is exit status 2 in one line naming the key path,
before any analysis, whatever the output form; keys given twice keep their last value and are listed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from refusals import refused

from pe_verify import cli, models
from pe_verify.properties.encodings.model_config import bundled_models

PHI2 = json.dumps(bundled_models()["phi-2"].config)
FORMS = [[], ["--json"], ["--markdown"]]


def _with(extra: str) -> str:
    """phi-2's config with `extra` (JSON members) added."""
    return PHI2[:-1] + ", " + extra + "}"


CASES = {
    "past the recursion limit": (
        _with('"ignored": ' + "[" * 100_000 + "]" * 100_000),
        "nests 100001 levels deep; a config nests at most 64",
    ),
    "past the depth allowed": (
        _with('"ignored": {"a": ' + "[" * 70 + "]" * 70 + "}"),
        "nests 72 levels deep (under config key ignored); a config nests at most 64",
    ),
    "a surrogate in a key": (_with('"ign\\ud800": 1'), "config key ign\\ud800 holds a lone surrogate"),
    "a surrogate in a value": (
        _with('"x": [{"y": "ok\\udc00"}]'),
        "config key x[0].y holds a lone surrogate (\\udc00) in its value",
    ),
    "past the int-string limit": (_with('"x": 1' + "0" * 5000), "config key x is an integer of 5001 digits"),
    "an integer past every float": (
        _with('"rope_theta": ' + "9" * 400),
        "config key rope_theta is an integer of 400 digits, beyond the largest float",
    ),
    "a float past every float": (_with('"rope_theta": 1e400'), "config key rope_theta is 1e400, beyond"),
}


def _write(folder: Path, text: str) -> Path:
    path = folder / "config.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("form", FORMS, ids=["text", "json", "markdown"])
@pytest.mark.parametrize("case", CASES)
def test_hostile_configs_are_one_line(tmp_path: Path, capsys, case: str, form: list[str]) -> None:
    text, message = CASES[case]
    path = _write(tmp_path, text)
    assert message in refused(capsys, str(path), "--no-cross-check", *form)


def test_the_recursion_limit_is_below_the_deep_case() -> None:
    assert sys.getrecursionlimit() < 100_000


@pytest.mark.parametrize("form", FORMS, ids=["text", "json", "markdown"])
def test_unreadable_paths_are_one_line(tmp_path: Path, capsys, form: list[str]) -> None:
    assert "cannot be read: File name too long" in refused(capsys, str(tmp_path / ("n" * 5000)), *form)
    assert "bad\\nname\\udcff is neither a file nor a folder" in refused(capsys, "bad\nname\udcff", *form)


def test_a_config_given_in_python_is_checked_too() -> None:
    looped: dict = {"model_type": "llama"}
    looped["self"] = looped
    for config, message in [
        (looped, "nests more than 64 levels deep (under config key self)"),
        ({"rope_scaling": {1: 2}}, "config key rope_scaling.1 is of type int, not a string"),
        ({"rope_theta": 10**5000}, "config key rope_theta is an integer of about 5001 digits"),
        ({"name": "\ud800"}, "config key name holds a lone surrogate"),
    ]:
        with pytest.raises(models.ModelInputError, match=r"^the given config") as caught:
            models.resolve(config)
        assert message in str(caught.value)


def test_keys_given_twice_keep_their_last_value_and_are_listed(tmp_path: Path) -> None:
    text = _with('"rope_theta": 20000, "rope_scaling": {"factor": 2.0, "factor": 4.0, "type": "linear"}')
    config, _ = models.read_config_file(_write(tmp_path, text))
    assert config["rope_theta"] == 20000 and config["rope_scaling"]["factor"] == 4.0
    assert models.duplicate_keys(text) == ["rope_scaling", "rope_theta", "rope_scaling.factor"]
    assert models.duplicate_keys('{"a": [{"b": 1, "b": 2}], "c": {"d": {}}}') == ["a[0].b"]
    assert models.duplicate_keys(PHI2) == []


def test_nan_and_infinity_are_read_as_transformers_reads_them(tmp_path: Path, capsys) -> None:
    """Python's json (and so transformers) reads NaN and Infinity: an ignored key holding one (Nemotron-H's
    time_step_limit) is no problem; a positional key holding one is a problem naming the key."""
    path = _write(tmp_path, _with('"time_step_limit": [0.0, Infinity]'))
    assert cli.main(["--quiet", "model", str(path), "--no-cross-check", "--context", "64"]) == 0
    capsys.readouterr()
    path = _write(tmp_path, _with('"rope_theta": NaN'))
    assert cli.main(["--quiet", "model", str(path), "--no-cross-check", "--context", "64"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.startswith("pe-verify: error: config key rope_theta: must be a finite real number")
