"""`pe-verify check TARGET --family FAMILY`: the battery of `properties.battery` run on a user's callable.

TARGET is ``package.module:name`` (imported with the current folder on the path) or ``path/to/file.py:name``;
``name`` may be dotted (``Class.method``). Loading failures, a callable that fits none of the family's
contracts and an unknown backend are usage errors (`TargetError`); the battery itself never raises for what
the callable does, it reports it. `check` loads and runs the target in a child process (`pe_verify.isolated`),
so that its exit, crash, hang, leak or prints are findings too; its import is held to the time limit of a
call.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pe_verify import isolated
from pe_verify.properties import battery
from pe_verify.properties.battery import Backend, Report, Settings
from pe_verify.properties.battery.rope_conventions import table_form
from pe_verify.reporting.markdown import cell, code

TORCH_MISSING = '--backend torch needs PyTorch, which is an optional extra: pip install -e ".[torch]"'

#: What `--backend` takes: "auto" chooses by the target's module (`backend`).
BACKENDS = ("auto", "numpy", "torch")


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


def require_backend(name: str) -> str:
    """`name`, one of `BACKENDS`; `TargetError` for another, or for "torch" when torch cannot be imported."""
    if name not in BACKENDS:
        raise TargetError(f"--backend must be one of {', '.join(BACKENDS)}; got {name!r}")
    if name == "torch" and importlib.util.find_spec("torch") is None:
        raise TargetError(TORCH_MISSING)
    return name


def backend(name: str, target: object) -> Backend:
    """The backend `--backend name` chooses for `target`, with the reason: "numpy" and "torch" force theirs;
    "auto" chooses torch tensors when the module that defines `target` imports torch (`imports_torch`),
    else numpy arrays (so always numpy where torch is not installed)."""
    if require_backend(name) != "auto":
        return Backend(name, reason=f"--backend {name}")
    if imports_torch(target):
        return Backend("torch", reason="its module imports torch")
    return Backend("numpy", reason="its module does not import torch")


def imports_torch(target: object) -> bool:
    """Whether the namespace `target` is defined in binds torch or one of its submodules: a function's
    globals (a method's or a `functools.partial`'s function's), else those of the module that defines it, or
    its class (a callable instance); a module is its own namespace."""
    if "torch" not in sys.modules:
        return False
    inner = target.func if isinstance(target, functools.partial) else getattr(target, "__func__", target)
    namespace = getattr(inner, "__globals__", None)
    if namespace is None:
        owner = inner if inspect.isclass(inner) or inspect.ismodule(inner) else type(inner)
        module = owner if inspect.ismodule(owner) else sys.modules.get(owner.__module__)
        namespace = getattr(module, "__dict__", {})
    return any(
        inspect.ismodule(value) and value.__name__.partition(".")[0] == "torch"
        for value in namespace.values()
    )


def check(
    family: str,
    spec: str,
    settings: Settings,
    backend_name: str = "auto",
    progress: Callable[[str], None] | None = None,
    limits: isolated.Limits | None = None,
) -> Report:
    """Load `spec` and run the battery of `family` on it in a child process, called with the `backend` that
    `backend_name` chooses for it, each call within `limits` (default `isolated.Limits()`); `TargetError`
    for a usage error."""
    require_backend(backend_name)
    return isolated.run(family, spec, settings, backend_name, limits, progress)


def family_record(name: str) -> battery.Family:
    """The family named; `TargetError` naming the known ones."""
    try:
        return battery.family_spec(name)
    except ValueError as exc:
        raise TargetError(str(exc)) from None


def require_expectable(name: str, expect: str) -> str:
    """`expect` when the family's identification can name it (its `expectable` variants: layouts, slope
    rules, scaling rules); `TargetError` listing the choices, and the families that identify `expect`."""
    expectable = family_record(name).expectable
    if expect not in expectable:
        choices = ", ".join(expectable)
        others = [other for other in battery.family_names() if expect in family_record(other).expectable]
        where = f" ({expect} is identified by --family {' and '.join(others)})" if others else ""
        raise TargetError(f"--expect for {name} must be one of {choices}; got {expect!r}{where}")
    return expect


def read_options(spec: battery.Family, settings: Settings) -> dict[str, object]:
    """The sizes and ranges of `settings` that the family's battery reads (`Family.options`), by option name
    (``max_pos``): lists for ``d`` and ``heads``."""
    read = {
        "d": list(settings.ds),
        "base": settings.base,
        "max_pos": settings.max_pos,
        "heads": [*settings.heads],
    }
    return {name: value for name, value in read.items() if name in spec.options}


def echoed(args: argparse.Namespace, settings: Settings) -> dict[str, object]:
    """What `check --json` echoes of its run: the target, then each option it ran with under the option's
    name (``max-pos`` for ``--max-pos``): a list for a repeatable one, null for one not given that has no
    default. Sizes and ranges are those the battery ran with (`settings`, `Report.settings`: the family's
    defaults, or the sizes a precomputed table holds), for the options its battery reads (`Family.options`);
    ``dtype`` and ``convention`` are there for a family with calling conventions. Given back as options
    (``--d 8 --d 64``; none for a null), they run the same check again."""
    spec = family_record(args.family)
    found: dict[str, object] = {"target": args.target, "family": args.family}
    found |= {name.replace("_", "-"): value for name, value in read_options(spec, settings).items()}
    found |= {"seed": args.seed, "examples": args.examples, "backend": args.backend}
    if spec.detect is not None:
        found |= {"dtype": args.dtype, "convention": args.convention}
    return found | {
        "timeout": args.timeout,
        "target-memory": args.target_memory,
        "max-minutes": args.max_minutes,
        "expect": args.expect,
    }


def text(report: Report) -> str:
    """The report as plain text: each property, the identification, the findings, the verdict."""
    lines = [f"{report.target} ({report.family}): {family_record(report.family).contract}"]
    if report.backend is not None:
        lines.append(f"called with {report.backend.statement}")
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
    lines += cause_lines(report.cause)
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


def cause_lines(cause: battery.RootCause | None) -> list[str]:
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
    """A short markdown report to paste into a pull request (every table cell through `cell`, so a pipe in a
    counterexample or a tolerance cannot break the table)."""
    verdict = "passes every property" if report.passed else "**fails**"
    lines = [f"### `pe-verify check`: {code(report.target)} ({report.family}) {verdict}", ""]
    if report.backend is not None:
        lines += [f"Called with {report.backend.statement}.", ""]
    lines += ["| property | result | counterexample | tolerance |", "|---|---|---|---|"]
    for o in report.properties:
        shown = "" if o.counterexample is None else ", ".join(f"{k}={v}" for k, v in o.counterexample.items())
        result = "pass" if o.passed else "**fail**"
        lines.append(f"| {cell(o.name)} | {result} | {cell(shown)} | {cell(o.tolerance)} |")
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
