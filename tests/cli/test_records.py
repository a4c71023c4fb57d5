"""Typed records (`pe_verify.records`): `plain` writes a record as JSON and `parsed` reads it back equal; a
value missing a field, holding one more, of a wrong type, outside its vocabulary, or whose parts disagree is
refused with `RecordError` naming the field."""

from __future__ import annotations

import copy
import json

import pytest

from pe_verify.claims.model import Verdict
from pe_verify.records import (
    ClaimDetail,
    ClaimRecord,
    ClaimRow,
    EvidenceRecord,
    RecordError,
    StoredResults,
    WeakDependency,
    parsed,
    plain,
)

ROW = ClaimRow("T.1", "claim", "000_fake.txt", "One.", Verdict.PROVED, None, None)
EVIDENCE = EvidenceRecord("exact", "exact support", True, "supports", None, {"steps": "3"}, {"error": 0.5})
DETAIL = ClaimDetail(
    id="T.1",
    role="claim",
    document="000_fake.txt",
    section="a section",
    statement="One.",
    formal="x",
    verdict=Verdict.PROVED,
    sources_point=None,
    recorded_verdict=Verdict.PROVED,
    argument_verdict=None,
    recorded_argument_verdict=None,
    argument_issue=None,
    explanation="Exact.",
    evidence=[EVIDENCE],
    argument_evidence=[],
    depends_on=["T.0"],
    weak_dependencies=[WeakDependency("T.0", Verdict.REFUTED)],
)
STORED = StoredResults("key", ["T.1", "T.2"], {"T.1": ClaimRecord(ROW, "T.1 proved", DETAIL, "T.1 …", None)})


def _json() -> dict:
    return json.loads(json.dumps(plain(STORED)))


def test_a_record_written_as_json_reads_back_equal() -> None:
    assert parsed(StoredResults, _json()) == STORED
    assert parsed(float, 1) == 1 and parsed(list[int], [1, 2]) == [1, 2]


def _claim(data: dict) -> dict:
    return data["claims"]["T.1"]


TWINS = {
    "a missing field": (lambda d: _claim(d)["row"].pop("role"), "the record.claims.T.1.row lacks role"),
    "an extra field": (lambda d: _claim(d)["row"].update(note="x"), "row has no field note"),
    "a wrong type": (lambda d: _claim(d)["show"]["evidence"][0].update(holds="yes"), "holds: 'yes' is not"),
    "a list for text": (lambda d: _claim(d).update(line=["T.1"]), "line: ['T.1'] is not a str"),
    "a bool for text": (lambda d: d.update(key=True), "key: True is not a str"),
    "an unknown verdict": (lambda d: _claim(d)["row"].update(verdict="proved twice"), "is not a Verdict"),
    "a way sources cannot point": (lambda d: _claim(d)["row"].update(sources_point="up"), "is none of"),
    "a null for text": (lambda d: _claim(d)["show"].update(explanation=None), "None is not a str"),
    "a row that disagrees": (
        lambda d: _claim(d)["row"].update(statement="Two."),
        "the row of T.1 disagrees with its details",
    ),
    "a change without one": (lambda d: _claim(d).update(changed="T.1: computed"), "the change noted for T.1"),
    "an id listed twice": (lambda d: d.update(ids=["T.1", "T.1"]), "an id is listed twice"),
    "a record under another id": (
        lambda d: d["claims"].update({"T.2": copy.deepcopy(_claim(d))}),
        "the record filed under 'T.2'",
    ),
    "not an object": (lambda d: d.update(claims=[]), "claims: [] is not an object"),
}


@pytest.mark.parametrize("twin", TWINS)
def test_a_value_that_is_not_the_record_is_refused_naming_the_field(twin: str) -> None:
    data = _json()
    change, message = TWINS[twin]
    change(data)
    with pytest.raises(RecordError) as refused:
        parsed(StoredResults, data)
    assert message in str(refused.value)


def test_an_integer_is_no_bool_and_a_bool_no_integer() -> None:
    for kind, value in ((int, True), (bool, 1), (str, 1), (float, "1.0"), (list[int], [1, "2"])):
        with pytest.raises(RecordError):
            parsed(kind, value)
