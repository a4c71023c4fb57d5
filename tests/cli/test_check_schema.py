"""`pe-verify check --json` validates against its published JSON Schema
(`pe_verify/schemas/check.schema.json`, `check.schema()`), which carries its version; a document missing a
field or with a field of the wrong type does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_verify import __version__, check, cli

jsonschema = pytest.importorskip("jsonschema")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rope_bf16_positions.py"


@pytest.fixture(scope="module")
def validator() -> object:
    schema = check.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    cli.main(["--quiet", "check", *argv, "--json", "--examples", "3"])
    return json.loads(capsys.readouterr().out)


def test_a_failing_rope_run_and_an_alibi_run_with_expect_validate(capsys, validator) -> None:
    rope = _json(capsys, f"{EXAMPLE}:rotate", "--family", "rope", "--d", "8", "--d", "64")
    assert rope["schema_version"] == check.SCHEMA_VERSION and rope["pe_verify"] == __version__
    assert not rope["passed"] and rope["cause"]["label"] == "low-precision"
    validator.validate(rope)
    alibi = _json(
        capsys,
        "pe_verify.properties.encodings.alibi:alibi_slopes",
        "--family",
        "alibi",
        "--expect",
        "reference",
    )
    assert alibi["backend"] is None and alibi["expected"] == {"variant": "reference", "matched": True}
    validator.validate(alibi)


@pytest.mark.parametrize(
    "broken",
    [
        lambda doc: doc.pop("cause"),
        lambda doc: doc.update(passed="no"),
        lambda doc: doc.update(schema_version=0),
        lambda doc: doc["findings"].append({"label": "raises"}),
    ],
)
def test_a_document_missing_a_field_or_of_the_wrong_type_does_not_validate(capsys, validator, broken) -> None:
    document = _json(capsys, f"{EXAMPLE}:rotate", "--family", "rope", "--d", "8")
    broken(document)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(document)
