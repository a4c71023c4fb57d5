"""`pe-verify check TARGET --family FAMILY`: the battery of `properties.battery` run on a user's callable.

TARGET is ``package.module:name`` (imported with the current folder on the path) or ``path/to/file.py:name``;
``name`` may be dotted (``Class.method``). Loading failures, a callable that fits none of the family's
contracts and an unknown backend are usage errors (`TargetError`); the battery itself never raises for what
the callable does, it reports it. `check` loads and runs the target in a child process (`pe_verify.isolated`),
so that its exit, crash, hang, leak or prints are findings too; its import is held to the time limit of a
call.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pe_verify import isolated
from pe_verify.properties import battery
from pe_verify.properties.battery import Backend, Report, Settings
from pe_verify.properties.battery.rope_conventions import table_form

TORCH_MISSING = '--backend torch needs PyTorch, which is an optional extra: pip install -e ".[torch]"'


class TargetError(ValueError):
    """The target cannot be loaded or used: a one-line usage error."""


def load_target(spec: str) -> Callable:
    """The callable (or precomputed RoPE table, `rope_conventions.table_form`) named by ``module:name`` or
    ``file.py:name``; whatever its import raises (SystemExit and
    KeyboardInterrupt too: `check` imports it in a child process, where a Ctrl-C is not seen) is a
    `TargetError`, and so is an import that a call guard ended for running past the time limit of a call
    (`battery.CallTimeout`: `check` imports the target within `--timeout`)."""
    where, colon, name = spec.rpartition(":")
    if not colon or not where or not name:
        raise TargetError(f"TARGET must be package.module:name or path/to/file.py:name, got {spec!r}")
    try:
        module = _load_file(Path(where)) if where.endswith(".py") else _load_module(where)
    except TargetError:
        raise
    except battery.CallTimeout as exc:
        raise TargetError(f"importing {where} {exc} (--timeout)") from None
    except BaseException as exc:
        raise TargetError(f"importing {where} raised {type(exc).__name__}: {exc}") from None
    found: Any = module
    for part in name.split("."):
        if not hasattr(found, part):
            raise TargetError(f"{where} has no attribute {name!r}")
        found = getattr(found, part)
    if not callable(found) and table_form(found) is None:
        kind = type(found).__name__
        raise TargetError(f"{spec} is a {kind}, not a callable (nor a precomputed RoPE table)")
    return found


def _load_file(path: Path) -> Any:
    if not path.is_file():
        raise TargetError(f"{path} is not a file")
    name = f"pe_verify_target_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _load_module(name: str) -> Any:
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise TargetError(f"no module named {exc.name!r} (from TARGET {name})") from None
        raise


def backend(name: str) -> Backend:
    """The backend by name; torch must be importable."""
    if name == "torch":
        if importlib.util.find_spec("torch") is None:
            raise TargetError(TORCH_MISSING)
        return Backend("torch")
    return Backend("numpy")


def check(
    family: str,
    spec: str,
    settings: Settings,
    backend_name: str = "numpy",
    progress: Callable[[str], None] | None = None,
    limits: isolated.Limits | None = None,
) -> Report:
    """Load `spec` and run the battery of `family` on it in a child process, each call of it within
    `limits` (default `isolated.Limits()`); `TargetError` for a usage error."""
    backend(backend_name)
    return isolated.run(family, spec, settings, backend_name, limits, progress)


def family_record(name: str) -> battery.Family:
    """The family named; `TargetError` naming the known ones."""
    try:
        return battery.family_spec(name)
    except ValueError as exc:
        raise TargetError(str(exc)) from None


def require_expectable(name: str, expect: str) -> str:
    """`expect` when the family's identification can name it (its `expectable` variants: layouts, slope
    rules, scaling rules); `TargetError` listing the choices."""
    expectable = family_record(name).expectable
    if expect not in expectable:
        choices = ", ".join(expectable)
        raise TargetError(f"--expect for {name} must be one of {choices}; got {expect!r}")
    return expect


def text(report: Report) -> str:
    """The report as plain text: each property, the identification, the findings, the verdict."""
    lines = [f"{report.target} ({report.family}): {family_record(report.family).contract}"]
    statements = {p.name: p.statement for p in battery.properties_of(report.family)}
    for o in report.properties:
        if o.passed:
            lines.append(f"  pass  {o.name}: {statements.get(o.name, o.tolerance)}")
            continue
        lines.append(f"  FAIL  {o.message}")
        lines.append(f"        tolerance {o.tolerance}; searched {o.budget}")
    if report.identified is not None:
        i = report.identified
        how = "matches" if i.matches else "closest, does not match"
        lines.append(f"identified: {i.variant} ({how}; largest deviation {i.max_abs_deviation:.3g})")
        lines += [f"  {key} = {value}" for key, value in i.parameters.items()]
    lines += [f"finding [{f.label}] {f.message}" for f in report.findings]
    lines += _cause_lines(report.cause)
    failed = sum(not o.passed for o in report.properties)
    errors = sorted({f.label for f in report.findings if f.label in battery.ERRORS})
    if report.passed:
        verdict = "every property holds"
    elif failed:
        verdict = f"{failed} of {len(report.properties)} properties fail"
    else:
        named = ", ".join(errors)
        which = f"finding {named} is an error" if len(errors) == 1 else f"findings {named} are errors"
        verdict = f"every property holds, but the {which}: the check fails"
    if report.cause is not None:
        verdict += f"; root cause: {report.cause.finding.label}"
    lines.append(f"result: {verdict}")
    return "\n".join(lines)


def _cause_lines(cause: battery.RootCause | None) -> list[str]:
    """The root cause, its evidence, and the symptoms it explains and does not."""
    if cause is None:
        return []
    lines = [f"root cause: [{cause.finding.label}] (its finding above is the evidence)"]
    if cause.explains:
        lines.append(f"  explains: {'; '.join(cause.explains)}")
    if cause.unexplained:
        lines.append(f"  not explained by it: {'; '.join(cause.unexplained)}")
    return lines


def markdown(report: Report) -> str:
    """A short markdown report to paste into a pull request."""
    verdict = "passes every property" if report.passed else "**fails**"
    lines = [f"### `pe-verify check`: `{report.target}` ({report.family}) {verdict}", ""]
    lines += ["| property | result | counterexample | tolerance |", "|---|---|---|---|"]
    for o in report.properties:
        shown = "" if o.counterexample is None else ", ".join(f"{k}={v}" for k, v in o.counterexample.items())
        lines.append(f"| {o.name} | {'pass' if o.passed else '**fail**'} | {shown} | {o.tolerance} |")
    if report.identified is not None:
        i = report.identified
        parameters = ", ".join(f"{k}={v}" for k, v in i.parameters.items())
        lines += [
            "",
            f"Identified: **{i.variant}** ({parameters}; largest deviation {i.max_abs_deviation:.3g}).",
        ]
    if report.findings:
        lines += ["", *[f"- `{f.label}`: {f.message}" for f in report.findings]]
    if report.cause is not None:
        lines += ["", f"**Root cause** `{report.cause.finding.label}`: {report.cause.finding.message}"]
        lines += [f"- explains: {'; '.join(report.cause.explains)}"] if report.cause.explains else []
        unexplained = report.cause.unexplained
        lines += [f"- not explained by it: {'; '.join(unexplained)}"] if unexplained else []
    return "\n".join(lines) + "\n"
