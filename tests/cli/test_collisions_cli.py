"""`pe-verify collisions`: each answer with its evidence kind, witnesses re-verified, usage errors, and the
settings refused before any work because they would not fit in memory or time."""

from __future__ import annotations

from fractions import Fraction

import pytest
from json_documents import validated

from pe_verify import cli
from pe_verify.properties.analyses import collisions


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results of `list` and `show` go to a folder of this test, never to the user's cache."""
    monkeypatch.setenv("PE_VERIFY_CACHE", str(tmp_path_factory.mktemp("cache")))


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """The document `collisions --json` prints, validated against its schema."""
    assert cli.main(["collisions", *argv, "--json"]) == 0
    return validated("collisions", capsys.readouterr().out)


def _answers(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, dict]:
    """Each answer of `collisions --json`: its value, summary and kind of evidence."""
    return _json(capsys, *argv)["collisions"]["answers"]


def test_document_000_setting_has_no_exact_cross_dimension_coincidence(capsys) -> None:
    report = _answers(capsys, "--d", "6", "--max-pos", "64")
    assert report["cross_dim_exact_exists"]["value"] is False and report["cross_dim_witness"]["value"] is None
    nearest = report["cross_dim_nearest"]["value"]
    assert nearest["p1"] != nearest["p2"] and nearest["dim1"] != nearest["dim2"] and nearest["gap"] > 0
    assert report["same_dim_collisions"]["value"]["exact_over_integers"]["cos"] == {"p1": -1, "p2": 1}
    assert report["cross_dim_exact_exists"]["evidence"] == collisions.EXACT


def test_d8_witness_is_confirmed_at_50_digits(capsys) -> None:
    report = _answers(capsys, "--d", "8", "--max-pos", "32")
    assert report["cross_dim_exact_exists"]["value"] is True
    assert report["cross_dim_witness"]["value"] == {"p1": 1, "dim1": 0, "p2": 10, "dim2": 2}
    assert "agree to 50 digits" in report["cross_dim_witness"]["summary"]


def test_odd_d_says_why_the_vector_scan_is_absent(capsys) -> None:
    report = _answers(capsys, "--d", "3", "--max-pos", "16")
    assert report["vector_nearest"]["value"] is None
    evidence = report["vector_nearest"]
    assert evidence["evidence"] == collisions.NOT_COMPUTED and "odd d = 3" in evidence["summary"]


def test_a_base_float64_cannot_hold_exactly_is_flagged(capsys) -> None:
    assert cli.main(["collisions", "--d", "4", "--max-pos", "8", "--base", "1.1"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "base = 11/10 (float computations use its nearest float64, 1.1)" in header
    report = _json(capsys, "--d", "4", "--max-pos", "8", "--base", "1e4")["collisions"]
    assert report["base"] == 10000 and report["base_float64"] == 10000.0


def test_numbers_may_be_written_in_scientific_notation(capsys) -> None:
    assert _json(capsys, "--d", "4", "--max-pos", "1e2")["settings"]["max-pos"] == 100


def test_bfloat16_positions_collide_at_256(capsys) -> None:
    report = _answers(capsys, "--d", "4", "--dtype", "bfloat16", "--max-pos", "300")
    assert report["position_collision"]["value"] == {"p1": 256, "p2": 257}
    report = _answers(capsys, "--d", "4", "--dtype", "bfloat16", "--max-pos", "257")
    assert report["position_collision"]["value"] is None


def test_text_output_names_the_evidence_of_every_line(capsys) -> None:
    assert cli.main(["collisions", "--d", "6", "--max-pos", "16"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert lines and all(line.startswith("- ") and "[" in line for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d", "0"], "d must be a whole number from 1 to 2^20"),
        (["--d", "6", "--max-pos", "0"], "max-pos must be a whole number from 2 to 2^32"),
        (["--d", "6", "--max-pos", "1"], "max-pos must be a whole number from 2 to 2^32"),
        (["--d", "6", "--dtype", "float8"], "invalid choice"),
        (["--d", "6", "--base", "1"], "base must be a number greater than 1"),
        (["--d", "-5"], "d must be a whole number from 1 to 2^20"),
        (["--d", "6", "--scan-values", "0"], "scan-values must be a whole number from 1 to 2^52"),
        (["--d", "6", "--max-memory", "0"], "max-memory must be a number from 0.001 to 10^6"),
        (["--d", "6", "--max-minutes", "-1"], "max-minutes must be a number from 0.001 to 10^6"),
        (["--d", "2.5"], "d must be a whole number"),
        (["--max-pos", "8"], "required"),
    ],
)
def test_bad_settings_are_one_line_usage_errors(capsys, argv: list[str], message: str) -> None:
    assert cli.main(["collisions", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.fixture
def nothing_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the first answer fail loudly: a refusal must come before anything is computed."""

    def computed(*args: object) -> None:
        raise AssertionError("an answer was computed")

    monkeypatch.setattr(collisions, "position_collision", computed)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d", "100000", "--max-pos", "2"], "cross_dim_nearest needs about 37.3 GiB"),
        (["--d", "1048576", "--max-pos", "2"], "the 1048576×1048576 table of dim pairs"),
        (["--d", "64", "--max-pos", "8000000", "--scan-values", "10000000000"], "5.12e+08 sorted values"),
        (["--d", "4096", "--max-pos", "100000000"], "vector_collision needs about"),
        (["--d", "4096", "--max-pos", "2621440"], "raise --max-minutes"),
        (["--d", "6", "--max-pos", "1e40"], "max-pos must be a whole number from 2 to 2^32"),
        (["--d", "6", "--base", "1e100000000"], "exponent of at most 400"),
        (["--d", "8", "--base", "1e309"], "base 1e309 is beyond the largest float64"),
        (["--d", "6", "--base", "1.0000000000000000001"], "base 1.0000000000000000001 is greater than 1"),
        (["--d", "6", "--base", "nan"], "base must be a number such as"),
        (["--d", "6", "--base", "inf"], "base must be a number such as"),
        (["--d", "6", "--base", "3/0"], "a zero denominator"),
        (["--d", "6", "--base", "700000000000000087596000000000000142383971"], "cannot be factored quickly"),
        (["--d", "9" * 5000], "(5000 characters)"),
        (["--d", "6", "--dtype", "f" * 100_000], "(100000 characters)"),
    ],
)
def test_settings_that_would_blow_up_are_refused_before_any_work(
    capsys, nothing_computed: None, argv: list[str], message: str
) -> None:
    assert cli.main(["collisions", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err and len(captured.err) < 400


def test_the_memory_limit_is_the_one_given(capsys, nothing_computed: None) -> None:
    argv = ["collisions", "--d", "8192", "--max-pos", "2"]
    assert cli.main([*argv, "--max-memory", "0.1"]) == 2
    assert "the limit is 0.1 GiB" in capsys.readouterr().err
    assert cli.main([*argv, "--max-memory", "2"]) == 3
    assert "an answer was computed" in capsys.readouterr().err


@pytest.mark.slow
def test_vector_nearest_is_the_certified_separation(capsys) -> None:
    report = _answers(capsys, "--d", "6", "--max-pos", "1e6")
    nearest = report["vector_nearest"]["value"]
    assert nearest["offsets"] == [428708] and nearest["certified"] is True
    assert nearest["distance"].startswith("0.0228243414991472745890")
    assert Fraction(nearest["lower_bound"]) <= Fraction(nearest["distance"])


@pytest.mark.slow
def test_vector_nearest_for_an_endless_decimal_base_names_the_float64_it_used(capsys) -> None:
    report = _answers(capsys, "--d", "6", "--max-pos", "1e5", "--base", "4/3")
    assert "nearest float64, 1.3333333333333332593" in report["vector_nearest"]["summary"]
