"""`pe-verify collisions`: each answer with its evidence kind, witnesses re-verified, usage errors."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pe_verify import cli, collisions
from pe_verify.proofs.uniqueness import ValuePair

REQUIRED = {
    "d",
    "base",
    "max_pos",
    "dtype",
    "position_collision",
    "vector_collision",
    "cross_dim_exact_exists",
    "cross_dim_witness",
    "cross_dim_nearest",
    "same_dim_collisions",
}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert cli.main(["collisions", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_document_000_setting_has_no_exact_cross_dimension_coincidence(capsys) -> None:
    report = _json(capsys, "--d", "6", "--max-pos", "64")
    assert report.keys() >= REQUIRED
    assert report["cross_dim_exact_exists"] is False and report["cross_dim_witness"] is None
    nearest = report["cross_dim_nearest"]
    assert nearest["p1"] != nearest["p2"] and nearest["dim1"] != nearest["dim2"] and nearest["gap"] > 0
    assert report["same_dim_collisions"]["exact_over_integers"]["cos"] == {"p1": -1, "p2": 1}
    assert report["evidence"]["cross_dim_exact_exists"]["kind"] == collisions.EXACT


def test_d8_witness_is_confirmed_at_50_digits(capsys) -> None:
    report = _json(capsys, "--d", "8", "--max-pos", "32")
    assert report["cross_dim_exact_exists"] is True
    assert report["cross_dim_witness"] == {"p1": 1, "dim1": 0, "p2": 10, "dim2": 2}
    assert "agree to 50 digits" in report["evidence"]["cross_dim_witness"]["summary"]


def test_a_planted_wrong_witness_is_not_confirmed(monkeypatch) -> None:
    real = collisions.coinciding_dim_pairs(8, Fraction(10000))
    wrong = [type(real[0])(**{**real[0].__dict__, "witness": ValuePair(1, 0, 11, 2)})]
    monkeypatch.setattr(collisions, "coinciding_dim_pairs", lambda d, base: wrong)
    answer = collisions._cross_dim_witness(8, Fraction(10000))
    assert answer.evidence == collisions.DIGITS and "DO NOT agree" in answer.summary


def test_bfloat16_positions_collide_at_256(capsys) -> None:
    report = _json(capsys, "--d", "4", "--dtype", "bfloat16", "--max-pos", "300")
    assert report["position_collision"] == {"p1": 256, "p2": 257}
    report = _json(capsys, "--d", "4", "--dtype", "bfloat16", "--max-pos", "257")
    assert report["position_collision"] is None


def test_text_output_names_the_evidence_of_every_line(capsys) -> None:
    assert cli.main(["collisions", "--d", "6", "--max-pos", "16"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert lines and all(line.startswith("- ") and "[" in line for line in lines)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d", "0"], "d must be a positive integer"),
        (["--d", "6", "--max-pos", "0"], "max-pos must be a positive integer"),
        (["--d", "6", "--max-pos", "1"], "at least 2"),
        (["--d", "6", "--dtype", "float8"], "dtype must be one of"),
        (["--d", "6", "--base", "1"], "base must be a number greater than 1"),
        (["--d", "6", "--base", "nan"], "base must be a number greater than 1"),
        (["--d", "4096", "--max-pos", "100000000"], "exceeds"),
        (["--max-pos", "8"], "required"),
    ],
)
def test_bad_settings_are_one_line_usage_errors(capsys, argv: list[str], message: str) -> None:
    assert cli.main(["collisions", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
