"""Every `--json` document validates against its command's published JSON Schema (`pe_verify/schemas`),
which carries the envelope (`schema_version`, the pe-verify version, the command, its settings); a document
missing a field or with a field of the wrong type does not. The schemas are valid Draft 2020-12 schemas,
one for each command that prints JSON, and agree with the package on the version and the vocabularies."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import jsonschema
import pytest
import sympy as sp
from json_documents import schemas, validated, validator

from pe_verify import __version__, cli, documents
from pe_verify.claims import catalog
from pe_verify.claims.model import (
    EXACT,
    PROVED,
    REFUTES,
    ArgumentVerdict,
    Assessment,
    Evidence,
    Source,
    Verdict,
    claim,
)
from pe_verify.proofs.derivation import derivation, identity
from pe_verify.properties.encodings.model_config import SEVERITIES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rope_bf16_positions.py"


@claim(id="J.1", source=Source("000_fake.txt", "a section"), statement="One.", formal="x", expected=PROVED)
def j_1() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact.")


@claim(id="J.2", source=Source("general", "x"), statement="Two.", formal="y", expected=PROVED)
def j_2() -> Assessment:
    return Assessment((Evidence(EXACT, "a counterexample", True, REFUTES),), "Refuted.")


x = sp.Symbol("x", real=True)


@derivation(id="json.pythagoras", title="Pythagoras", statement=r"\sin^2 x + \cos^2 x = 1")
def pythagoras():
    yield identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), "Pythagoras")


#: One small run of each command that prints JSON, and the exit status it ends with.
RUNS = {
    "check": ([f"{EXAMPLE}:rotate", "--family", "rope", "--d", "8", "--examples", "3"], 1),
    "check-alibi": (
        ["pe_verify.properties.encodings.alibi:alibi_slopes", "--family", "alibi", "--expect", "reference"],
        0,
    ),
    "collisions": (["--d", "8", "--max-pos", "16"], 0),
    "list": ([], 1),
    "model": (["phi-2", "--no-cross-check", "--context", "64"], 0),
    "model-runtimes": (
        ["phi-3-mini-128k-instruct", "--no-cross-check", "--context", "4097", "--runtimes"],
        0,
    ),
    "proofs": ([], 0),
    "reproduce": (["critical_dimension"], 0),
    "separation": (["--d", "8", "--max-offset", "100"], 0),
    "show": (["J.2"], 1),
}


def _command(name: str) -> str:
    return name.partition("-")[0]


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What each run of `RUNS` printed, on a two-claim catalog and one derivation, with a private cache."""
    found = {}
    for name, (argv, status) in RUNS.items():
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PE_VERIFY_CACHE", str(tmp_path_factory.mktemp("cache")))
            if name in ("list", "show"):
                patch.setattr(catalog, "all_claims", lambda: (j_1, j_2))
                patch.setattr(catalog, "assessment", lambda name: {"J.1": j_1, "J.2": j_2}[name].assess())
            if name == "proofs":
                patch.setattr("pe_verify.proofs.all_derivations", lambda: (pythagoras,))
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                assert cli.main(["--quiet", _command(name), *argv, "--json"]) == status, name
        found[name] = out.getvalue()
    return found


@pytest.mark.parametrize("name", RUNS)
def test_each_commands_document_validates_and_carries_its_settings(printed, name: str) -> None:
    command = _command(name)
    found = validated(command, printed[name])
    assert (found["schema_version"], found["pe_verify"]) == (documents.SCHEMA_VERSION, __version__)
    assert found["command"] == command and documents.PAYLOADS[command] in found
    if command != "check":  # check echoes the sizes its battery ran with (test_check_cli.py)
        parser = cli._parser()
        sub = parser.parse_args(["proofs"]).commands[command]
        again = parser.parse_args([command, *cli._argv(sub, found["settings"])])
        assert cli._settings(again) == found["settings"]


def test_check_reports_its_verdict_and_its_expectation(printed) -> None:
    rope = validated("check", printed["check"])["report"]
    assert not rope["passed"] and rope["cause"]["label"] == "low-precision"
    alibi = validated("check", printed["check-alibi"])["report"]
    assert alibi["backend"] is None and alibi["expected"] == {"variant": "reference", "matched": True}


def _drop(key: str):
    return lambda document: document.pop(key)


#: Broken twins of a document: a field removed, a field of the wrong type.
TWINS = {
    "no schema_version": _drop("schema_version"),
    "an old schema_version": lambda document: document.update(schema_version=1),
    "no settings": _drop("settings"),
    "another command": lambda document: document.update(command="report"),
    "no result": lambda document: document.pop(documents.PAYLOADS[document["command"]]),
    "a result of the wrong type": lambda document: document.update(
        {documents.PAYLOADS[document["command"]]: "text"}
    ),
}

#: A field deep in each command's result, broken.
DEEP_TWINS = {
    "check": lambda d: d["report"]["findings"].append({"label": "raises"}),
    "collisions": lambda d: d["collisions"]["answers"].pop("vector_nearest"),
    "list": lambda d: d["claims"][0].update(verdict="proved beyond doubt"),
    "model": lambda d: d["model"]["keys"].update(used="hidden_size"),
    "model-runtimes": lambda d: d["model"]["runtimes"]["groups"][0]["findings"][0].update(first_offset=-1),
    "proofs": lambda d: d["derivations"][0]["steps"][0].update(holds="yes"),
    "reproduce": lambda d: d["reproductions"][0]["rows"][0].pop("agrees"),
    "separation": lambda d: d["separation"].update(certified=None),
    "show": lambda d: d["claim"]["evidence"][0].update(holds=1),
}


@pytest.mark.parametrize("command", DEEP_TWINS)
@pytest.mark.parametrize("twin", [*TWINS, "deep"])
def test_a_document_missing_a_field_or_of_the_wrong_type_does_not_validate(printed, command, twin) -> None:
    document = validated(_command(command), printed[command])
    (DEEP_TWINS[command] if twin == "deep" else TWINS[twin])(document)
    with pytest.raises(jsonschema.ValidationError):
        validator(_command(command)).validate(document)


def test_one_valid_schema_for_each_command_that_prints_json() -> None:
    published = schemas()
    for schema in published.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    # and the atlas record's own (`tests/cli/test_atlas.py`), which is no --json document
    payloads = {f"{c}.schema.json" for c in documents.PAYLOADS}
    assert published.keys() == {"document.schema.json", "atlas.schema.json", *payloads}
    parser = cli._parser()
    with_json = {
        name
        for name, sub in parser.parse_args(["proofs"]).commands.items()
        if any("--json" in action.option_strings for action in sub._actions)
    }
    assert with_json == documents.PAYLOADS.keys()
    envelope = published["document.schema.json"]
    assert envelope["properties"]["schema_version"] == {"const": documents.SCHEMA_VERSION}
    assert envelope["properties"]["command"]["enum"] == sorted(documents.PAYLOADS)


def test_the_schemas_vocabularies_are_the_packages() -> None:
    published = schemas()
    words = published["document.schema.json"]["$defs"]
    assert words["verdict"]["enum"] == [v.value for v in Verdict]
    assert words["argument_verdict"]["enum"] == [*(v.value for v in ArgumentVerdict), None]
    finding = published["model.schema.json"]["$defs"]["finding"]
    assert finding["properties"]["severity"]["enum"] == list(SEVERITIES)
