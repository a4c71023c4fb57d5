"""Every `*RotaryEmbedding` class transformers defines, checked as a new user would check it: the class handed
to the rope battery as it is (`run_battery("rope", cls, …)`, what `pe-verify check
transformers.models.x.modeling_x:XRotaryEmbedding --family rope` runs), at the head size its own default
config gives, with no adapter and nothing picked. What is right is read apart from the battery: from the
config the class is built with (its config class's defaults, with the head size and the declared base the
battery passes: `rope_parameters` — theta, rope type, partial rotary factor, mRoPE sections) and from the
source of the apply function beside it (`rotate_half` pairs dims i and i + d/2; an apply that takes every
other dim interleaves them). Each class falls in one category:

- ``right``: the identification matches, with the layout, base, rotary fraction and scaling rule expected
  and an attention factor of 1, and no property fails and no error finding fires;
- ``true-finding``: the battery's only errors are that the class raised, and it raises the same with its
  own default config, called as its model calls it (a library whose defaults do not run);
- ``unidentified``: the identification does not match (honestly "unidentified") and no error finding or
  failed property is drawn from it;
- ``wrong``: the identification matches but names another layout, base, fraction or rule;
- ``false-finding``: an error finding or a failed property on a class that is correct;
- ``refused``: ``pe-verify check`` says in one line, exit 2, why it cannot check the class as it is (its
  module has no apply function, or the suite cannot build it from its config class: a class its model
  builds from another config), and asks for a factory; not right, and no finding against the library;
- ``crash``: the battery raised (``pe-verify check`` exits 3);
- ``not-applicable``: not a 1-D RoPE over token positions (an axial 2-D/3-D vision or video rotation, a
  rotary module whose forward does not take ``(x, position_ids)``); its outcome is recorded, not judged.

The sweep asserts the issue's bar: right (or a true finding) or unidentified in at least 95 % of the
applicable classes, no false finding, no crash (`tests/properties/test_rope_transformers_sweep.py` runs it
as a slow test).

    python benchmarks/rope_transformers_sweep.py [--workers 2] [--examples 10] [--only llama qwen2]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import json
import logging
import math
import multiprocessing
import os
import re
import signal
import sys
import time
import typing
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

#: The share of applicable classes that must be right or honestly unidentified.
BAR = 0.95

#: Seconds one class may take before it counts as a crash (a hang is no check).
TIME_LIMIT = 600

#: The categories, in the order the table prints them.
CATEGORIES = (
    "right",
    "true-finding",
    "unidentified",
    "wrong",
    "false-finding",
    "refused",
    "crash",
    "not-applicable",
)

#: The categories that meet the bar.
GOOD = ("right", "true-finding", "unidentified")

#: The battery's scaling variant for each transformers rope type (None: not a 1-D token rotation).
SCALING = {
    "default": "none",
    "linear": "linear",
    "dynamic": "dynamic-ntk",
    "yarn": "yarn",
    "llama3": "llama3",
    "longrope": "longrope",
    "proportional": "proportional",
}

#: The layer type the battery asks a module with one rotation per layer type for.
LAYER_TYPE = "full_attention"

#: Relative tolerance on the base identified.
BASE_TOLERANCE = 1e-3


@dataclass
class Expected:
    """What the class computes, read from its config and its apply function's source (not from the battery):
    head size d, base, rope type, rotary fraction and layout; `why_not` says why the class is no 1-D token
    rotation (empty when it is one)."""

    d: int = 0
    base: float = math.nan
    rope_type: str = ""
    fraction: float = 1.0
    layout: str = ""
    config: str = ""
    default_base: float = math.nan
    why_not: str = ""


@dataclass
class Outcome:
    """One class checked: its category, why, what was expected and what the battery said, and the time."""

    spec: str
    category: str
    reason: str
    expected: dict[str, Any] = field(default_factory=dict)
    identified: dict[str, Any] = field(default_factory=dict)
    matches: bool | None = None
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0


def transformers_models() -> str:
    """The directory of transformers' model packages."""
    return os.path.dirname(importlib.import_module("transformers.models").__file__)


def modeling_modules() -> list[str]:
    """Every ``transformers.models.<x>.modeling_<y>`` module (PyTorch ones: no TF or Flax), sorted."""
    root = transformers_models()
    found = []
    for package in sorted(os.listdir(root)):
        directory = os.path.join(root, package)
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            pytorch = not name.startswith(("modeling_tf_", "modeling_flax_"))
            if name.startswith("modeling_") and name.endswith(".py") and pytorch:
                found.append(f"transformers.models.{package}.{name[:-3]}")
    return found


def quiet() -> None:
    """Silence transformers' warnings and logging (a config built with one head warns, and so on)."""
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def rotary_classes(only: Iterable[str] = ()) -> tuple[list[str], dict[str, str]]:
    """``module:Class`` of every class named ``*RotaryEmbedding`` that a modeling module defines (imported
    one by one), and the modules that failed to import with their error. `only` keeps model packages whose
    name is one of them."""
    quiet()
    wanted = set(only)
    classes, failed = [], {}
    for name in modeling_modules():
        if wanted and name.split(".")[2] not in wanted:
            continue
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # any import failure is reported, not fatal
            failed[name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
            continue
        for key, value in vars(module).items():
            if inspect.isclass(value) and key.endswith("RotaryEmbedding") and value.__module__ == name:
                classes.append(f"{name}:{key}")
    return classes, failed


def load(spec: str) -> Any:
    """The object a ``module:name`` spec names."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def own_config_class(cls: type) -> type | None:
    """The config class the rotary class's constructor names for ``config`` (None when it names none)."""
    try:
        hint = typing.get_type_hints(cls.__init__, vars(sys.modules[cls.__module__])).get("config")
    except Exception:  # an unresolved hint is no config class
        return None
    return hint if inspect.isclass(hint) else None


def field_default(config_class: type, name: str) -> Any:
    """The default a config class declares for field `name` (None when it declares none)."""
    found = getattr(config_class, "__dataclass_fields__", {}).get(name)
    default = getattr(found, "default", None)
    return None if default is None or type(default).__name__ == "_MISSING_TYPE" else default


def head_size(config: Any) -> int | None:
    """The attention head size of a config (an instance, or a class whose field defaults are read):
    ``head_dim`` when set, else hidden size over heads."""
    if inspect.isclass(config):
        d, hidden, heads = (
            field_default(config, n) for n in ("head_dim", "hidden_size", "num_attention_heads")
        )
    else:
        d = vars(config).get("head_dim")
        hidden, heads = vars(config).get("hidden_size"), vars(config).get("num_attention_heads")
    if isinstance(d, int) and d > 0:
        return d
    if isinstance(hidden, int) and isinstance(heads, int) and heads > 0:
        return hidden // heads
    return None


def rope_parameters(config: Any) -> dict[str, Any]:
    """The config's rope parameters (those of `LAYER_TYPE`, or of the first layer type by name, when
    nested); a config that keeps ``rope_theta`` (and ``rotary_dim``) as attributes gives those."""
    found = getattr(config, "rope_parameters", None) or {}
    if found and "rope_theta" not in found and "rope_type" not in found:
        # the battery's choice: the first layer type in sorted order (a config may build this dict from a set)
        nested = [found[k] for k in sorted(found) if isinstance(found[k], dict)]
        found = found.get(LAYER_TYPE) or (nested[0] if nested else {})
    if not found and isinstance(getattr(config, "rope_theta", None), int | float):
        found = {"rope_theta": config.rope_theta, "rope_type": "default"}
    return dict(found)


def top_level_source(module: Any, name: str) -> str:
    """The source of the top-level ``def name`` in `module`'s file (also when the module wraps the function
    so that its own source cannot be read, as a kernel from the hub is); empty when there is none."""
    found = re.search(rf"^def {name}\(.*?(?=^\S)", inspect.getsource(module), re.M | re.S)
    return found.group(0) if found else ""


def apply_layout(cls: type) -> tuple[str, str]:
    """The layout the apply function beside `cls` rotates in, from its source (and the ``rotate_*`` helpers
    it calls): ``interleaved`` for a rotation of dims 2i and 2i+1 (``x[..., ::2]``, ``repeat_interleave``),
    ``half_split`` for ``rotate_half`` = ``cat(-x2, x1)`` of the halves; with the apply function's name
    (``apply_rotary_pos_emb`` where the module defines it, as transformers' attention calls it, else the
    first function taking q, k, cos and sin). Empty when no apply function is found."""
    module = sys.modules[cls.__module__]
    source = inspect.getsource(module)
    names = re.findall(r"^def (\w+)\(([^)]*)\)", source, re.M)
    taking = [n for n, params in names if re.search(r"\bcos\b", params) and re.search(r"\bsin\b", params)]
    leading = [n for n, params in names if re.match(r"\s*\w+\W[^,]*,\s*\w+\W[^,]*,\s*cos\b", params)]
    if "apply_rotary_pos_emb" in (n for n, _ in names):
        apply = "apply_rotary_pos_emb"
    elif leading or taking:
        apply = (leading + taking)[0]
    else:
        return "", ""
    text = top_level_source(module, apply)
    text += "".join(top_level_source(module, h) for h in set(re.findall(r"\b(rotate_\w+)\(", text)))
    if re.search(r"\[\s*\.\.\.\s*,\s*(?:0|1)?\s*::\s*2\s*\]|repeat_interleave|interleave", text):
        return "interleaved", apply
    if "rotate_half" in text or re.search(r"x\.shape\[-1\]\s*//\s*2", text):
        return "half_split", apply
    return "", apply


def expected_for(spec: str, settings_base: float, max_pos: int) -> Expected:
    """What the class at `spec` computes as the battery builds it, read from its config and apply source:
    the head size of its config class's defaults (of its text part for a composite config), the rope
    parameters of that config built with the battery's arguments (head size, one head, the declared base,
    the context), the layout of its apply function's source."""
    cls = load(spec)
    parameters = inspect.signature(cls.__init__).parameters
    forward = list(inspect.signature(cls.forward).parameters)[1:3] if hasattr(cls, "forward") else []
    if forward != ["x", "position_ids"]:
        return Expected(why_not=f"forward takes {forward}, not (x, position_ids): not a token rotary module")
    if "config" not in parameters:
        return Expected(why_not="built from no config")
    config_class = own_config_class(cls)
    if config_class is None:
        return Expected(why_not="its constructor names no config class")
    try:
        default: Any = config_class()
    except Exception:  # a config whose defaults do not validate: its field defaults are read
        default = config_class
    text = (
        default.get_text_config()
        if hasattr(default, "get_text_config") and not inspect.isclass(default)
        else None
    )
    if text is not None and text is not default and not rope_parameters(default) and rope_parameters(text):
        # a composite config (a vision-language model's): the rotary module is built from its text part
        config_class, default = type(text), text
    if inspect.isclass(default):
        kept = field_default(config_class, "rope_parameters") or {}
        theta = kept.get("rope_theta", getattr(config_class, "default_theta", math.nan))
    else:
        kept = rope_parameters(default)
        theta = kept.get("rope_theta", math.nan)
    if kept.get("rope_type") == "axial" or getattr(config_class, "default_rope_type", "") == "axial":
        return Expected(why_not="axial rope type: a 2-D/3-D rotation over image or video coordinates")
    d = head_size(default)
    if d is None or d % 2:
        d = 0  # no even head size in the config's defaults: the battery's own sizes are checked
    layout, apply = apply_layout(cls)
    expected = Expected(
        d=d, layout=layout, config=config_class.__name__ + (f", applied by {apply}" if apply else "")
    )
    expected.default_base = float(theta)
    try:
        built = config_class(
            head_dim=d or 64,
            hidden_size=d,
            num_attention_heads=1,
            num_key_value_heads=1,
            rope_theta=settings_base,
            max_position_embeddings=max_pos,
        )
    except Exception as exc:  # the battery cannot build it either: the defaults are expected
        built = None
        expected.config += f" (not buildable with head_dim={d}: {type(exc).__name__})"
    used = rope_parameters(built) if built is not None else dict(kept)
    if not used:
        return Expected(why_not=f"{config_class.__name__} holds no rope parameters")
    # the rotary module reads the factor from rope_parameters (a config's `rotary_dim` only where it keeps
    # no rope_parameters: GPT-J's, CodeGen's)
    fraction = used.get("partial_rotary_factor")
    rotary = (
        field_default(config_class, "rotary_dim") if built is None else getattr(built, "rotary_dim", None)
    )
    if not getattr(built, "rope_parameters", None) and isinstance(rotary, int) and 0 < rotary <= d:
        fraction = rotary / d
    expected.fraction = float(fraction or 1.0)
    expected.base = float(used.get("rope_theta", expected.default_base))
    expected.rope_type = str(used.get("rope_type", "default"))
    return expected


def at_size(expected: Expected, d: int) -> tuple[float, float]:
    """The base and rotary fraction expected at head size d: transformers' inv_freq is
    base^(−arange(0, r, 2)/r) with r = int(d·fraction), so an odd r rotates r + 1 dims at the frequencies
    of base^((r + 1)/r) over r + 1 dims."""
    r = int(d * expected.fraction)
    if d and r % 2:
        return expected.base ** ((r + 1) / r), (r + 1) / d
    return expected.base, expected.fraction


def judge(expected: Expected, identified: dict[str, Any], matches: bool) -> str:
    """Empty when a matching identification is the expected one, else what differs."""
    wrong = []
    d = expected.d or int(identified.get("d") or 0)
    expected = replace(expected, d=d)
    expected.base, expected.fraction = at_size(expected, d)
    if expected.layout and identified.get("layout") != expected.layout:
        wrong.append(f"layout {identified.get('layout')} (expected {expected.layout})")
    base = identified.get("base")
    if base is None or not math.isclose(float(base), expected.base, rel_tol=BASE_TOLERANCE):
        wrong.append(f"base {base} (expected {expected.base:g})")
    fraction = identified.get("rotary_fraction")
    if fraction is None or abs(float(fraction) - expected.fraction) > 1 / (2 * (expected.d or 128)):
        wrong.append(f"rotary fraction {fraction} (expected {expected.fraction:g})")
    scaling = SCALING.get(expected.rope_type, expected.rope_type)
    if identified.get("scaling") != scaling:
        wrong.append(f"scaling {identified.get('scaling')} (expected {scaling})")
    if expected.rope_type == "default" and not math.isclose(
        float(identified.get("attention_factor", math.nan)), 1.0, rel_tol=1e-3
    ):
        wrong.append(f"attention factor {identified.get('attention_factor')} (expected 1)")
    return "; ".join(wrong)


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise TimeoutError in the block after `seconds` (SIGALRM: a worker process's main thread)."""

    def alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no result within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check_one(job: tuple[str, int]) -> Outcome:
    """Check the class at `spec` with the rope battery and put it in its category."""
    spec, examples = job
    quiet()
    from pe_verify.properties.battery import ERRORS, Backend, Settings, run_battery

    start = time.perf_counter()
    settings = Settings(examples=examples)
    try:
        expected = expected_for(spec, settings.base, settings.max_pos)
    except Exception as exc:  # a config that cannot be read is reported
        expected = Expected(why_not=f"its default config cannot be built: {type(exc).__name__}: {exc}"[:200])
    settings = Settings(ds=(expected.d,) if expected.d else (), examples=examples)
    outcome = Outcome(spec, "", "", expected=asdict(expected))
    try:
        with time_limit(TIME_LIMIT), contextlib.redirect_stdout(io.StringIO()):
            report = run_battery("rope", load(spec), settings, Backend("torch"))
    except ValueError as exc:
        outcome.category, outcome.reason = "refused", f"usage error (exit 2): {exc}".splitlines()[0][:300]
    except BaseException as exc:  # whatever the battery raises is a crash (exit 3)
        if isinstance(exc, KeyboardInterrupt):
            raise
        outcome.category, outcome.reason = "crash", f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    else:
        identified = report.identified
        if identified is not None:
            outcome.identified = {k: v for k, v in identified.parameters.items() if k != "called with"}
        outcome.matches = identified is not None and identified.matches
        outcome.errors = [f"{f.label}: {f.message}"[:300] for f in report.findings if f.label in ERRORS]
        outcome.failed = [o.message[:300] for o in report.properties if not o.passed]
        if not expected.why_not:
            outcome.category, outcome.reason = categorise(expected, outcome)
    if expected.why_not:
        said = outcome.reason or outcome.category
        outcome.category, outcome.reason = "not-applicable", f"{expected.why_not} (check: {said})"
    outcome.seconds = round(time.perf_counter() - start, 2)
    return outcome


def own_default_raises(spec: str, expected: Expected) -> str:
    """What the class raises when built from its own default config (of its text part for a composite
    one), with no argument of the battery's, and called as its model calls it: ``forward(x,
    position_ids)`` on [1, 1, 4, d] rows at positions 0 … 3 (with the full-attention layer type where its
    forward takes one); empty when that call succeeds or the config cannot be built."""
    import torch

    cls = load(spec)
    config_class = own_config_class(cls)
    try:
        config = config_class()
        if not getattr(config, "rope_parameters", None) and hasattr(config, "get_text_config"):
            config = config.get_text_config()
        module = cls(config)
    except Exception:  # a default config that cannot be built says nothing of the class
        return ""
    d = expected.d or head_size(config) or 0
    given = {"layer_type": LAYER_TYPE} if "layer_type" in inspect.signature(cls.forward).parameters else {}
    try:
        module(torch.zeros(1, 1, 4, d), torch.arange(4)[None], **given)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def categorise(expected: Expected, outcome: Outcome) -> tuple[str, str]:
    """The category of a class the battery ran on, and why. An error finding is a true one when every error
    is that the class raised and the class raises the same error with its own default config, called as its
    model calls it (`own_default_raises`): a library whose defaults do not run."""
    if outcome.errors or outcome.failed:
        said = "; ".join(outcome.errors + outcome.failed)
        raised = own_default_raises(outcome.spec, expected)
        if (
            raised
            and all(e.startswith("raises:") for e in outcome.errors)
            and raised.split(": ", 1)[-1][:60] in said
        ):
            return "true-finding", f"it raises with its own default config too: {raised}"
        return "false-finding", said
    if not outcome.matches:
        return "unidentified", "identification does not match; no error finding drawn from it"
    wrong = judge(expected, outcome.identified, True)
    if wrong:
        return "wrong", wrong
    return "right", ""


def sweep(classes: list[str], workers: int, examples: int) -> list[Outcome]:
    """Check every class, `workers` at a time (each in a process of its own, replaced every few classes)."""
    jobs = [(spec, examples) for spec in classes]
    if workers <= 1:
        return [check_one(job) for job in jobs]
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, maxtasksperchild=25) as pool:
        outcomes = []
        for outcome in pool.imap(check_one, jobs):
            outcomes.append(outcome)
            print(
                f"{len(outcomes)}/{len(jobs)} {outcome.spec} {outcome.category}", file=sys.stderr, flush=True
            )
        return outcomes


def rate(outcomes: list[Outcome]) -> tuple[int, int, float]:
    """(right, a true finding or unidentified; applicable; their share) over the applicable classes."""
    applicable = [o for o in outcomes if o.category != "not-applicable"]
    good = sum(o.category in GOOD for o in applicable)
    return good, len(applicable), good / len(applicable) if applicable else 1.0


def table(outcomes: list[Outcome], failed_imports: dict[str, str]) -> str:
    """The counts per category, then every class that is not right with its reason."""
    counts = Counter(o.category for o in outcomes)
    good, applicable, share = rate(outcomes)
    lines = [f"{len(outcomes)} classes; {applicable} applicable"]
    lines += [f"  {category:15} {counts.get(category, 0)}" for category in CATEGORIES]
    lines.append(
        f"right, true finding or unidentified: {good} of {applicable} = {100 * share:.1f} %"
        f" (bar {100 * BAR:g} %)"
    )
    for module, error in failed_imports.items():
        lines.append(f"import failed: {module}: {error}")
    for category in CATEGORIES[1:]:
        for o in outcomes:
            if o.category == category:
                lines.append(f"{category}: {o.spec.rpartition(':')[2]}: {o.reason}")
    return "\n".join(lines)


def verdict(outcomes: list[Outcome]) -> list[str]:
    """What fails the issue's bar (empty: it holds)."""
    problems = []
    _, applicable, share = rate(outcomes)
    if share < BAR:
        problems.append(
            f"right, true finding or unidentified in {100 * share:.1f} % of {applicable},"
            f" under {100 * BAR:g} %"
        )
    for category in ("false-finding", "crash"):
        bad = [o.spec for o in outcomes if o.category == category]
        if bad:
            problems.append(f"{len(bad)} {category}: {', '.join(bad)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the sweep, print the table, and exit 1 when the bar is not met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--examples", type=int, default=10)
    parser.add_argument("--only", nargs="*", default=(), help="model packages to keep (e.g. llama qwen2)")
    parser.add_argument("--json", help="write every outcome to this file")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    classes, failed_imports = rotary_classes(args.only)
    outcomes = sweep(classes, args.workers, args.examples)
    print(table(outcomes, failed_imports))
    print(f"time: {time.perf_counter() - start:.0f} s with {args.workers} workers")
    if args.json:
        with open(args.json, "w") as out:
            json.dump([asdict(o) for o in outcomes], out, indent=1, default=str)
    problems = verdict(outcomes)
    for problem in problems:
        print(f"FAILS: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
