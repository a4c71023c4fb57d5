"""The typed records pe-verify prints with `--json` and keeps in its results cache, with their one JSON form
(`plain`) and their one validating reader (`parsed`).

A record is a frozen dataclass whose fields are annotated with the JSON types they hold: ``str``, ``bool``,
``int``, ``float`` (an integer is a number too), ``None`` in a union, ``list[X]``, ``dict[str, X]``, a
``Literal`` or a `StrEnum` (a string of its vocabulary), another record, or ``Any``/``object`` for a value
read as it is. `parsed` reads a parsed JSON value into a record, field by field, and raises `RecordError`
naming the first field that does not fit (a missing or extra field, a wrong type, a word outside the
vocabulary); a record's own ``__post_init__`` then checks that its parts agree. The results cache and
`check --rerun` read JSON through it.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pe_verify.claims.model import ArgumentVerdict, Row, Verdict


class RecordError(ValueError):
    """A JSON value that is not the record it should be: the field and what is wrong with it."""


def plain(record: object) -> Any:
    """The JSON-ready form of `record`: a dataclass as the object of its fields in their order, a list or
    tuple as a list, a dict's values in turn, anything else as it is."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return {field.name: plain(getattr(record, field.name)) for field in dataclasses.fields(record)}
    if isinstance(record, (list, tuple)):
        return [plain(item) for item in record]
    if isinstance(record, dict):
        return {name: plain(value) for name, value in record.items()}
    return record


def parsed(kind: Any, value: object, where: str = "the record") -> Any:
    """`value` (parsed JSON) read as `kind` (a record class or a field annotation, module docstring);
    `RecordError` naming the field, from `where`, that does not fit."""
    if kind in (Any, object):
        return value
    if dataclasses.is_dataclass(kind):
        return _record(kind, value, where)
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        for arm in arguments:
            try:
                return parsed(arm, value, where)
            except RecordError:
                continue
        raise RecordError(f"{where}: {_shown(value)} is none of {' | '.join(map(_name, arguments))}")
    if origin is list:
        if not isinstance(value, list):
            raise RecordError(f"{where}: {_shown(value)} is not a list")
        return [parsed(arguments[0], item, f"{where}[{index}]") for index, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise RecordError(f"{where}: {_shown(value)} is not an object")
        return {name: parsed(arguments[1], item, f"{where}.{name}") for name, item in value.items()}
    if origin is Literal:
        if value not in arguments or type(value) is not type(arguments[0]):
            raise RecordError(f"{where}: {_shown(value)} is not one of {', '.join(map(repr, arguments))}")
        return value
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        if type(value) is not str or value not in {member.value for member in kind}:
            raise RecordError(f"{where}: {_shown(value)} is not a {kind.__name__}")
        return kind(value)
    if kind is type(None):
        if value is not None:
            raise RecordError(f"{where}: {_shown(value)} is not null")
        return value
    allowed = (int, float) if kind is float else (kind,)
    if type(value) not in allowed:
        raise RecordError(f"{where}: {_shown(value)} is not a {_name(kind)}")
    return value


def _record(kind: type, value: object, where: str) -> Any:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: {_shown(value)} is not an object")
    hints = _hints(kind)
    missing, extra = hints.keys() - value.keys(), value.keys() - hints.keys()
    if missing or extra:
        which = (
            f"lacks {', '.join(sorted(missing))}" if missing else f"has no field {', '.join(sorted(extra))}"
        )
        raise RecordError(f"{where} {which}")
    read = {name: parsed(hint, value[name], f"{where}.{name}") for name, hint in hints.items()}
    try:
        return kind(**read)
    except ValueError as exc:
        raise RecordError(f"{where}: {exc}") from None


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    """The annotation of each field of a record class, in field order."""
    hints = typing.get_type_hints(kind)
    return {field.name: hints[field.name] for field in dataclasses.fields(kind)}


def _name(kind: Any) -> str:
    return "null" if kind is type(None) else getattr(kind, "__name__", str(kind))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


#: Which way a claim's cited sources point, where they decide.
SourcesPoint = Literal["for", "against", "mixed"]


@dataclass(frozen=True)
class ClaimRow:
    """One claim as `list --json` prints it."""

    id: str
    role: str
    document: str
    statement: str
    verdict: Verdict
    sources_point: SourcesPoint | None
    argument_verdict: ArgumentVerdict | None


@dataclass(frozen=True)
class EvidenceRecord:
    """One piece of evidence as `show --json` prints it: raw measurements under `measured`."""

    kind: str
    summary: str
    holds: bool
    bearing: str
    instances: str | None
    detail: dict[str, Any]
    measured: dict[str, Any]


@dataclass(frozen=True)
class WeakDependency:
    """A claim this one depends on whose verdict does not support it."""

    id: str
    verdict: Verdict


@dataclass(frozen=True)
class ClaimDetail:
    """Everything about one claim as `show --json` prints it."""

    id: str
    role: str
    document: str
    section: str
    statement: str
    formal: str
    verdict: Verdict
    sources_point: SourcesPoint | None
    recorded_verdict: Verdict
    argument_verdict: ArgumentVerdict | None
    recorded_argument_verdict: ArgumentVerdict | None
    argument_issue: str | None
    explanation: str
    evidence: list[EvidenceRecord]
    argument_evidence: list[EvidenceRecord]
    depends_on: list[str]
    weak_dependencies: list[WeakDependency]


@dataclass(frozen=True)
class ClaimRecord:
    """Everything `list` and `show` print about one claim (what the cache keeps): its row, its line of the
    table, its details, their text, and how its computed verdicts differ from the recorded ones (None when
    they do not). Its parts must agree: the row says what the details say, and `changed` is set exactly
    when a computed verdict differs from the recorded one (ValueError otherwise)."""

    row: ClaimRow
    line: str
    show: ClaimDetail
    text: str
    changed: str | None

    def __post_init__(self) -> None:
        show = self.show
        if any(value != getattr(show, name) for name, value in plain(self.row).items()):
            raise ValueError(f"the row of {self.row.id} disagrees with its details")
        differs = (show.verdict, show.argument_verdict) != (
            show.recorded_verdict,
            show.recorded_argument_verdict,
        )
        if differs != (self.changed is not None):
            raise ValueError(f"the change noted for {self.row.id} disagrees with its verdicts")


@dataclass(frozen=True)
class StoredResults:
    """A results file of the cache: its key, the ids of every claim (each once) and the records computed so
    far, each filed under its own id, which the ids list (ValueError otherwise)."""

    key: str
    ids: list[str]
    claims: dict[str, ClaimRecord]

    def __post_init__(self) -> None:
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("an id is listed twice")
        for name, record in self.claims.items():
            if name not in self.ids or record.row.id != name:
                raise ValueError(f"the record filed under {name!r} is not one of the listed claims'")


@dataclass(frozen=True)
class StepRecord:
    """One step of a derivation as `proofs --json` prints it."""

    claim: str
    justification: str
    holds: bool
    error: str | None


@dataclass(frozen=True)
class DerivationRecord:
    """One derivation and its verification as `proofs --json` prints it."""

    id: str
    title: str
    statement: str
    hypotheses: list[str]
    verified: bool
    seconds: float
    steps: list[StepRecord]


@dataclass(frozen=True)
class ReproductionRecord:
    """A paper's result recomputed row by row, as `reproduce --json` prints it."""

    name: str
    claim: str
    source: str
    precision: str
    rows: list[Row]


@dataclass(frozen=True)
class Decided:
    """How many offsets each stage of the separation search decided."""

    by_interval_bounds: int
    by_block_screen: int
    by_single_offsets: int
    in_ball_arithmetic: int


@dataclass(frozen=True)
class ChunkRecord:
    """One chunk of a separation search run in chunks."""

    from_offset: int
    max_offset: int
    argmin_offsets: list[int]
    seeded: bool
    seconds: float


@dataclass(frozen=True)
class SeparationRecord:
    """What `separation --json` certifies: the base as the exact decimal the encoding reads, the least
    distance to 50 digits and the offsets that attain it, lower bounds for every offset of the range and for
    every other one, whether it is certified (and why not), what decided the offsets, and the time taken."""

    base: str
    minimum_distance: str
    argmin_offsets: list[int]
    lower_bound: str
    next_lower_bound: str | None
    certified: bool
    reason: str | None
    decided: Decided
    phase_seconds: dict[str, float]
    seconds: float
    chunks: list[ChunkRecord]


@dataclass(frozen=True)
class PropertyRecord:
    """One property of a `check` report: whether it held, its tolerance, the search, a counterexample."""

    name: str
    passed: bool
    tolerance: str
    budget: str
    counterexample: dict[str, Any] | None


@dataclass(frozen=True)
class FindingRecord:
    """A finding of a `check` report: its label and what it says."""

    label: str
    message: str


@dataclass(frozen=True)
class CheckReport:
    """The report of `check --json` as read back: the verdict and the properties typed, the rest as it is
    (the published schema describes it)."""

    target: str
    family: str
    passed: bool
    backend: Any
    properties: list[PropertyRecord]
    identified: Any
    findings: list[FindingRecord]
    cause: Any
    expected: Any


@dataclass(frozen=True)
class CheckDocument:
    """A saved `check --json` document, as `check --rerun` reads it."""

    schema_version: int
    pe_verify: str
    command: Literal["check"]
    settings: dict[str, Any]
    report: CheckReport
