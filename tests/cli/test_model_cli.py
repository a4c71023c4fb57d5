"""`pe-verify model`: a config file, a folder or a bundled name in, the record out (text, JSON, markdown);
bad input is one line and exit status 2, naming the key, after every answer that does not need it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from refusals import refused

from pe_verify import cli, inputs
from pe_verify.models import analyse_model
from pe_verify.properties.analyses import model_setup
from pe_verify.properties.encodings.model_config import bundled_models

PHI2 = bundled_models()["phi-2"].config


def _write(folder: Path, config: object, name: str = "config.json") -> Path:
    path = folder / name
    path.write_text(config if isinstance(config, str) else json.dumps(config), encoding="utf-8")
    return path


def test_the_command_limit_is_the_analysis_limit() -> None:
    assert inputs.MAX_MODEL_CONTEXT == model_setup.MAX_CONTEXT


@pytest.mark.slow
def test_a_folder_a_file_and_the_api_give_the_same_record(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, PHI2)
    assert (
        cli.main(["--quiet", "model", str(tmp_path), "--json", "--no-cross-check", "--context", "512"]) == 0
    )
    from_folder = json.loads(capsys.readouterr().out)["model"]
    assert cli.main(["--quiet", "model", str(path), "--json", "--no-cross-check", "--context", "512"]) == 0
    from_file = json.loads(capsys.readouterr().out)["model"]
    from_api = analyse_model(PHI2, 512, cross_check=False)
    for record in (from_folder, from_file):
        record.pop("config")
    from_api.pop("config")
    assert from_folder == from_file == json.loads(json.dumps(from_api))
    (group,) = from_api["groups"]
    assert group["position"]["rotary_dim"] == 32 and "partial-rotary" in {
        f["label"] for f in group["findings"]
    }


@pytest.mark.slow
def test_text_and_markdown_name_every_key(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, dict(PHI2, my_custom_key=1))
    assert cli.main(["--quiet", "model", str(path), "--no-cross-check", "--context", "256"]) == 0
    text = capsys.readouterr().out
    assert "keys ignored: architectures, my_custom_key, num_key_value_heads" in text
    assert "finding [note] partial-rotary" in text
    assert (
        cli.main(["--quiet", "model", str(path), "--markdown", "--no-cross-check", "--context", "256"]) == 0
    )
    assert "| separation | certified" in capsys.readouterr().out


def test_list_names_the_bundled_models(capsys) -> None:
    assert cli.main(["model", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in bundled_models()) and "huggingface.co" in out


def test_list_runtimes_names_every_profile_and_where_it_was_read(capsys) -> None:
    from pe_verify.properties.encodings.runtimes import PROFILES

    assert cli.main(["model", "--list-runtimes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [p.name for p in PROFILES]
    assert all("read at" in line for line in lines)


def test_list_runtimes_takes_no_source(capsys) -> None:
    assert "--list-runtimes lists the runtime profiles and takes no SOURCE" in refused(
        capsys, "llama-3.1-8b", "--list-runtimes"
    )


@pytest.mark.parametrize("names", ["vllm-9", "vllm-0.34,nope", "transformers"])
def test_unknown_runtimes_are_refused_before_any_work(capsys, names: str) -> None:
    assert "unknown runtime" in refused(capsys, "llama-3.1-8b", "--no-cross-check", "--runtimes", names)


def test_runtimes_asked_by_name_give_only_those(capsys) -> None:
    assert (
        cli.main(
            ["--quiet", "model", "llama-2-7b", "--no-cross-check", "--runtimes", "vllm-0.34,mlx-lm", "--json"]
        )
        == 0
    )
    runtimes = json.loads(capsys.readouterr().out)["model"]["runtimes"]
    assert [p["name"] for p in runtimes["profiles"]] == ["vllm-0.34", "mlx-lm"]
    assert list(runtimes["groups"][0]["table"]) == ["transformers-5", "vllm-0.34", "mlx-lm"]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "holds a JSON array, not an object"),
    ],
)
def test_unreadable_configs(tmp_path: Path, capsys, config: str, message: str) -> None:
    assert message in refused(capsys, str(_write(tmp_path, config)))


def test_missing_paths(tmp_path: Path, capsys) -> None:
    assert "folder without a config.json" in refused(capsys, str(tmp_path))
    assert "neither a file nor a folder" in refused(capsys, str(tmp_path / "nothing"))
    assert "name a config.json" in refused(capsys)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"rope_theta": -1}, "rope_theta"),
        ({"rope_scaling": {"rope_type": "linear", "factor": 0.5}}, "rope_scaling.factor"),
        ({"hidden_size": 2561}, "hidden_size"),
    ],
)
def test_bad_keys_exit_2_after_the_answers_that_do_not_need_them(
    tmp_path: Path, capsys, change: dict, key: str
) -> None:
    path = _write(tmp_path, dict(PHI2, **change))
    assert cli.main(["--quiet", "model", str(path), "--json", "--no-cross-check", "--context", "64"]) == 2
    captured = capsys.readouterr()
    record = json.loads(captured.out)["model"]
    assert record["problems"][0]["key"] == key
    assert captured.err.strip().startswith(f"pe-verify: error: config key {key}:")


@pytest.mark.parametrize("context", ["0", "1", str(2**24 + 1), "1.5", "-3"])
def test_contexts_out_of_range(tmp_path: Path, capsys, context: str) -> None:
    assert "context" in refused(capsys, str(_write(tmp_path, PHI2)), "--context", context)


def test_json_and_markdown_cannot_be_combined(capsys) -> None:
    assert "cannot be combined" in refused(capsys, "phi-2", "--json", "--markdown")


def test_an_alibi_config_without_a_context_asks_for_one(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, bundled_models()["bloom"].config)
    assert cli.main(["--quiet", "model", str(path), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["model"]
    assert "context-needed" in {f["label"] for f in record["findings"]}
    assert record["cross_check"] == {"skipped": "no rotary frequencies to compare (positional scheme: alibi)"}


def test_an_error_finding_is_exit_1_and_its_line(capsys) -> None:
    assert cli.main(["--quiet", "model", "gpt2", "--context", "2048", "--no-cross-check"]) == cli.EXIT_CHANGED
    captured = capsys.readouterr()
    assert "finding [error] context-beyond-table" in captured.out
    assert captured.err.strip().startswith("pe-verify: finding [error] context-beyond-table:")
    assert cli.main(["--quiet", "model", "gpt2", "--context", "1024", "--no-cross-check"]) == 0


def test_work_beyond_the_limits_is_refused_before_it_starts(tmp_path: Path, capsys) -> None:
    wide = _write(tmp_path, {"model_type": "llama", "head_dim": 4096, "max_position_embeddings": 10**6})
    assert "lower --context or raise --max-minutes" in refused(capsys, str(wide), "--max-minutes", "0.1")
    assert "raise --max-memory" in refused(capsys, str(wide), "--max-memory", "0.1")


LLAMA2 = bundled_models()["llama-2-7b"].config


@pytest.mark.parametrize("form", [[], ["--json"], ["--markdown"]])
@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"rope_theta": "10000"}, "rope_theta"),
        ({"rope_theta": True}, "rope_theta"),
        ({"rope_theta": [10000]}, "rope_theta"),
        ({"rope_theta": 0}, "rope_theta"),
        ({"rope_theta": 1}, "rope_theta"),
        ({"rope_theta": 0.5}, "rope_theta"),
        ({"rope_theta": 10000, "rotary_emb_base": 20000}, "rope_theta"),
        ({"rope_scaling": {"rope_type": ["yarn"], "factor": 2.0}}, "rope_scaling.rope_type"),
        ({"rope_scaling": {"rope_type": {"a": 1}, "factor": 2.0}}, "rope_scaling.rope_type"),
        ({"head_dim": 1}, "head_dim"),
        ({"head_dim": 127}, "head_dim"),
        ({"num_attention_heads": 10**8, "model_type": "bloom"}, "num_attention_heads"),
    ],
)
def test_unusable_keys_in_every_form(tmp_path: Path, capsys, change: dict, key: str, form: list[str]) -> None:
    path = _write(tmp_path, dict(LLAMA2, **change))
    argv = ["--quiet", "model", str(path), "--no-cross-check", "--context", "256", *form]
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"pe-verify: error: config key {key}:"), err


@pytest.mark.parametrize("rule", ["yarn", "llama3"])
def test_a_factor_of_exactly_one_is_valid(tmp_path: Path, capsys, rule: str) -> None:
    block = {"rope_type": rule, "factor": 1.0, "original_max_position_embeddings": 4096}
    if rule == "llama3":
        block |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    path = _write(tmp_path, dict(LLAMA2, rope_scaling=block))
    assert cli.main(["--quiet", "model", str(path), "--no-cross-check", "--context", "256", "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["model"]["groups"]
    assert {row["regime"] for row in group["answers"]["frequencies"]["value"]} == {"extrapolated"}


def _cells(line: str) -> int:
    """The cells of a markdown table row: its unescaped pipes, less one."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_markdown_cells_hold_pipes_and_line_breaks_of_the_config() -> None:
    from pe_verify.reporting.models import model_markdown

    record = analyse_model(PHI2, 64, cross_check=False)
    group = record["groups"][0]
    group["layer_type"] = "full | attention\nlayers"
    group["skipped"] = {"decay": "a reason | with a pipe"}
    record["groups"].append(group)  # two groups: the layer type is a column of the answers table
    rows = [line for line in model_markdown(record, pairs=False).splitlines() if line.startswith("|")]
    header = rows.index("| layers | answer | evidence | what was found |")
    assert {_cells(row) for row in rows[header:]} == {4} and {_cells(row) for row in rows[:header]} == {2}
    assert _cells("| full | attention | answer | exact | found |") == 5  # a pipe left raw breaks the row
