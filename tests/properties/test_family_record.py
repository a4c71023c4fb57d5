"""One record per family: the toy family of `tests/families/toy.py`, defined in that one file, is run by
`pe-verify check`, checked by `pe_verify.testing` and listed by the command line with no other edit; the
record's rules refuse a family misnamed or defined twice."""

from __future__ import annotations

import dataclasses

import pytest
from families import toy

from pe_verify import check, cli, testing
from pe_verify.properties import battery
from pe_verify.properties.family_index import builtin_families


def test_the_suite_s_families_are_read_off_their_module_names() -> None:
    assert builtin_families() == ("alibi", "rope", "rope-frequencies", "sinusoidal")
    assert battery.family_names() == (*builtin_families(), "toy-ones")
    assert (
        battery.family_spec("rope-frequencies").module
        == "pe_verify.properties.battery.families.rope_frequencies"
    )


def test_the_command_line_checks_a_family_defined_in_one_file(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["--quiet", "check", "families.toy:ones", "--family", "toy-ones", "--examples", "5"])
    out = capsys.readouterr().out
    assert status == cli.EXIT_OK and "ones(n) -> [n], every value 1" in out and "identified: ones" in out
    status = cli.main(
        ["--quiet", "check", "families.toy:with_nan", "--family", "toy-ones", "--examples", "5"]
    )
    out = capsys.readouterr().out
    assert status == cli.EXIT_CHANGED and "FAIL  finite" in out and "[not-finite]" in out
    assert check.require_expectable("toy-ones", "ones") == "ones"
    with pytest.raises(check.TargetError, match="--expect for toy-ones must be one of ones"):
        check.require_expectable("toy-ones", "zeros")


def test_an_unknown_family_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["check", "families.toy:ones", "--family", "toy-zeros"])
    assert status == cli.EXIT_USAGE and "toy-ones" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown family 'toy-zeros': one of alibi, rope, "):
        battery.family_spec("toy-zeros")


def test_the_assert_helper_is_made_from_the_record() -> None:
    report = testing.assert_toy_ones(toy.ones, examples=5)
    assert report.passed and "assert_toy_ones" in dir(testing)
    assert "ones(n) -> [n]" in testing.assert_toy_ones.__doc__
    with pytest.raises(AssertionError, match="fails the toy-ones battery"):
        testing.assert_toy_ones(toy.one_too_many, examples=5)
    with pytest.raises(TypeError, match="unexpected keyword arguments: d"):
        testing.assert_toy_ones(toy.ones, d=4)
    with pytest.raises(AttributeError):
        testing.assert_toy_zeros  # noqa: B018


def test_a_family_misnamed_or_defined_twice_is_refused() -> None:
    misnamed = dataclasses.replace(toy.FAMILY, module="pe_verify.properties.battery.families.rope")
    with pytest.raises(ValueError, match="must be named after it"):
        battery.define(misnamed)
    with pytest.raises(ValueError, match="defined twice"):
        battery.define(dataclasses.replace(toy.FAMILY, module="elsewhere"))
    assert battery.define(toy.FAMILY) is toy.FAMILY
