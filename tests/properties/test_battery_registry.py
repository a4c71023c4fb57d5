"""One battery, driven by the property registry: every reference variant of every family passes every
property registered for it, the suite's own family objects (`Rope`, `Sinusoidal`, `Alibi`, `RopeScaling`)
pass it too and are identified as the variant they declare, and every registered property has a broken twin
that fails it.

A property added to a family without a twin here fails `test_every_property_has_a_broken_twin`, so no
property of `pe-verify check` goes untested against an input it must reject. The implementations are those
of the family corpora (`test_check_*.py`); the per-family files test counterexamples and labels in detail.
"""

from __future__ import annotations

import dataclasses
import functools
import subprocess
import sys
from collections.abc import Callable

import families
import ml_dtypes
import numpy as np
import pytest
from implementations import alibi, rope, rope_newcomer, sinusoidal
from implementations import rope_frequencies as frequencies

from pe_verify.properties import battery
from pe_verify.properties.battery import Identification, Report, Settings, expected, run_battery
from pe_verify.properties.encodings.alibi import Alibi, alibi_bias, alibi_slopes
from pe_verify.properties.encodings.rope import Rope
from pe_verify.properties.encodings.scaling import RopeScaling
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

SETTINGS = {
    "rope": Settings(examples=8, max_pos=65536, ds=(2, 8, 64)),
    "sinusoidal": Settings(examples=8, max_pos=4096, ds=(8, 64)),
    "alibi": Settings(examples=8, max_pos=24, heads=(1, 2, 3, 4, 8, 12)),
    "rope-frequencies": Settings(examples=8),
}

#: Correct implementations of each family, under the names of the code they re-express.
VARIANTS: dict[str, dict[str, Callable]] = {
    "rope": {
        "Hugging Face rotate_half": rope.hf_rotate_half,
        "Meta complex interleaved": rope.meta_complex,
        "float32 rotate_half": lambda x, p: rope.hf_rotate_half(x, p, dtype=np.float32),
        "q/k apply form": lambda q, k, p: (rope.hf_rotate_half(q, p), rope.hf_rotate_half(k, p)),
    },
    "sinusoidal": {
        "Vaswani et al.": sinusoidal.vaswani,
        "tensor2tensor": sinusoidal.tensor2tensor,
        "fairseq": sinusoidal.fairseq,
        "PyTorch tutorial, float32": sinusoidal.tutorial_float32,
    },
    "alibi": {
        "fairseq get_slopes": alibi.fairseq_get_slopes,
        "BLOOM build_alibi_tensor": alibi.bloom_bias,
        "MPT gen_slopes": alibi.mpt_gen_slopes,
        "paper's causal bias": alibi.paper_bias,
    },
    "rope-frequencies": {
        "default": frequencies.default_rope,
        "linear": frequencies.linear,
        "NTK": frequencies.ntk,
        "YaRN": frequencies.yarn,
        "Llama 3": frequencies.llama3,
        "float32": frequencies.default_rope_float32,
    },
}


#: The suite's own family objects, each with the variant its identification must name: the references the
#: catalog computes with run through the same battery as a user's code.
FAMILY_OBJECTS: dict[str, dict[str, tuple[Callable, str]]] = {
    "rope": {
        **{
            f"Rope(layout={layout!r})": (
                lambda x, p, layout=layout: Rope(x.shape[-1], layout=layout).rotate(x, p),
                layout,
            )
            for layout in ("interleaved", "half_split")
        },
        "Rope(layout='half_split'), q/k form": (
            lambda q, k, p: tuple(Rope(x.shape[-1], layout="half_split").rotate(x, p) for x in (q, k)),
            "half_split",
        ),
    },
    "sinusoidal": {
        "Sinusoidal.float64_rows": (lambda p, d: Sinusoidal(d).float64_rows(p), "interleaved"),
        "Sinusoidal.rows": (lambda p, d: Sinusoidal(d).rows(p), "interleaved"),
        "Sinusoidal(dtype='float32').stored_rows": (
            lambda p, d: Sinusoidal(d, dtype="float32").stored_rows(p),
            "interleaved",
        ),
    },
    "alibi": {
        "Alibi().slopes": (lambda n: Alibi().slopes(n), "reference"),
        "Alibi().bias": (lambda n, length: Alibi().bias(length, length, n), "reference"),
        "Alibi(causal=False).bias": (
            lambda n, length: Alibi(causal=False).bias(length, length, n),
            "reference",
        ),
    },
    "rope-frequencies": {
        f"RopeScaling({kind!r}, {factor})": (
            RopeScaling(kind, factor).frequencies,
            kind,
        )
        for kind, factor in (("none", 1), ("linear", 4), ("ntk", 4), ("yarn", 4), ("llama3", 8))
    },
}


def _noise(function: Callable, scale: float = 1e-9) -> Callable:
    generator = np.random.default_rng(0)

    @functools.wraps(function)  # keeps the signature: the form is read off the required parameters
    def noisy(*args: object) -> np.ndarray:
        value = np.asarray(function(*args), dtype=np.float64)
        return value + scale * generator.standard_normal(value.shape)

    return noisy


def _bf16_positions(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    return rope.hf_rotate_half(x, positions.astype(ml_dtypes.bfloat16).astype(np.float64))


def _normalised(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return rope.meta_complex(x / np.where(norms == 0, 1, norms), positions)


def _grows_with_row(n_heads: int, seq_len: int) -> np.ndarray:
    i = np.arange(seq_len)[None, :, None]
    return alibi_bias(seq_len, seq_len, alibi_slopes(n_heads)) * (i + 1)


def _two_bit_distance(n_heads: int, seq_len: int) -> np.ndarray:
    distance = (np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]) % 4
    return -alibi_slopes(n_heads)[:, None, None] * distance[None]


#: For each registered (family, property), an implementation that must fail that property.
TWINS: dict[tuple[str, str], Callable] = {
    ("rope", "stateless"): rope_newcomer.make_kept_dynamic_ntk,
    ("rope", "relative"): _bf16_positions,
    ("rope", "equal-positions"): lambda q, k, p: (rope.hf_rotate_half(q, p + 1), rope.hf_rotate_half(k, p)),
    ("rope", "norm"): lambda x, p: rope.meta_complex(x, p) * np.where(np.arange(x.shape[1]) < 2, 1.001, 1.0),
    ("rope", "linear"): _normalised,
    ("rope", "batch"): lambda x, p: rope.meta_complex(x, np.arange(len(x))),
    ("rope", "deterministic"): _noise(rope.meta_complex),
    ("sinusoidal", "deterministic"): sinusoidal.noisy,
    ("sinusoidal", "dot-relative"): sinusoidal.by_dimension,
    ("sinusoidal", "distance-relative"): sinusoidal.float16_positions,
    ("sinusoidal", "constant-norm"): sinusoidal.fairseq_table,
    ("sinusoidal", "fixed-rotation"): sinusoidal.by_dimension,
    ("sinusoidal", "distinct-rows"): sinusoidal.clamped,
    ("sinusoidal", "odd-d"): sinusoidal.unpadded,
    ("alibi", "shape"): alibi.buffered_bias,
    ("alibi", "positive"): lambda n: 1.0 - np.arange(n) / max(n - 1, 1),
    ("alibi", "decreasing"): lambda n: alibi_slopes(n)[::-1].copy(),
    ("alibi", "relative"): _grows_with_row,
    ("alibi", "penalises-distance"): lambda n, length: (
        -alibi_bias(length, length, alibi_slopes(n), causal=False)
    ),
    ("alibi", "monotone"): _two_bit_distance,
    ("alibi", "deterministic"): _noise(alibi_slopes),
    ("rope-frequencies", "one-per-pair"): frequencies.full_width,
    ("rope-frequencies", "finite"): frequencies.nan_entry,
    ("rope-frequencies", "positive"): frequencies.negative_entry,
    ("rope-frequencies", "decreasing"): frequencies.increasing,
    ("rope-frequencies", "deterministic"): _noise(frequencies.default_rope),
    ("rope-frequencies", "fastest-at-most-one"): frequencies.doubled,
}


for module in families.MODULES:  # a family added in one file brings its own settings, references and twins
    name = module.FAMILY.name
    SETTINGS[name], VARIANTS[name] = module.SETTINGS, module.REFERENCES
    TWINS.update({(name, prop): twin for prop, twin in module.TWINS.items()})


def test_every_property_of_every_family_has_a_broken_twin_and_every_family_references() -> None:
    registered = {(f, p.name) for f in battery.family_names() for p in battery.properties_of(f)}
    assert set(VARIANTS) == set(SETTINGS) == set(battery.family_names())
    assert registered == set(TWINS), (
        f"without a twin: {registered - set(TWINS)}; stale: {set(TWINS) - registered}"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("family", "variant"), [(family, name) for family, variants in VARIANTS.items() for name in variants]
)
def test_every_reference_variant_passes_every_property(family: str, variant: str) -> None:
    report = run_battery(family, VARIANTS[family][variant], SETTINGS[family], target=variant)
    failed = [o.message for o in report.properties if not o.passed]
    assert not failed, failed
    assert {o.name for o in report.properties} <= {p.name for p in battery.properties_of(family)}


@pytest.mark.parametrize(("family", "name"), sorted(TWINS), ids=[f"{f}-{n}" for f, n in sorted(TWINS)])
def test_each_broken_twin_fails_its_property(family: str, name: str) -> None:
    report = run_battery(family, TWINS[family, name], SETTINGS[family], target=f"twin of {name}")
    outcome = next(o for o in report.properties if o.name == name)
    assert not outcome.passed and outcome.counterexample, outcome


@pytest.mark.slow
@pytest.mark.parametrize(
    ("family", "name"), [(family, name) for family, objects in FAMILY_OBJECTS.items() for name in objects]
)
def test_the_suites_family_objects_pass_and_are_identified_as_what_they_declare(
    family: str, name: str
) -> None:
    function, variant = FAMILY_OBJECTS[family][name]
    report = run_battery(family, function, SETTINGS[family], target=name)
    failed = [o.message for o in (*report.properties, expected(report, variant)) if not o.passed]
    assert not failed, failed


def _identified(variant: str, matches: bool = True, **parameters: object) -> Report:
    return Report("target", "rope", (), Identification(variant, parameters, 0.0, matches), ())


@pytest.mark.parametrize(
    ("variant", "parameters", "expect"),
    [
        ("reference", {}, "reference"),
        ("rope half_split", {}, "half_split"),
        ("naive 2^(−8h/n)", {}, "naive"),
        ("yarn, factor 8", {}, "yarn"),
        ("rope", {"layout": "interleaved"}, "interleaved"),
    ],
)
def test_expect_holds_for_the_variant_identified(variant: str, parameters: dict, expect: str) -> None:
    outcome = expected(_identified(variant, **parameters), expect)
    assert outcome.passed and outcome.name == f"expect {expect}" and outcome.counterexample is None


def test_expect_fails_for_another_variant_a_mismatch_or_nothing_identified() -> None:
    other = expected(_identified("rope half_split"), "interleaved")
    assert not other.passed and other.counterexample == {
        "expected": "interleaved",
        "identified": "rope half_split",
    }
    assert not expected(_identified("rope half_split", matches=False), "half_split").passed
    nothing = dataclasses.replace(_identified("reference"), identified=None)
    assert expected(nothing, "reference").counterexample == {"expected": "reference", "identified": "nothing"}


@pytest.mark.slow
def test_a_family_runs_without_its_module_imported_first() -> None:
    script = (
        "import sys\n"
        "from pe_verify.properties.encodings.alibi import alibi_slopes\n"
        "from pe_verify.properties.battery import Settings, expected, run_battery\n"
        "report = run_battery('alibi', alibi_slopes, Settings(examples=2, max_pos=8, heads=(1, 2)))\n"
        "assert report.passed and expected(report, 'reference').passed\n"
        "assert 'pe_verify.check' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _rejecting(family: str) -> tuple[Callable, int]:
    """A correct implementation of `family` that raises at one size of its settings, and that size."""

    def refuse(size: int, rejected: int) -> None:
        if size == rejected:
            raise ValueError(f"size {size} is not supported")

    if family == "rope":
        return lambda x, p: refuse(x.shape[-1], 8) or rope.meta_complex(x, p), 8
    if family == "sinusoidal":
        return lambda p, d: refuse(d, 8) or sinusoidal.vaswani(p, d), 8
    if family == "alibi":
        return lambda n: refuse(n, 3) or alibi.fairseq_get_slopes(n), 3
    return lambda d: refuse(d, 64) or frequencies.default_rope(d), 64


@pytest.mark.parametrize("family", ["alibi", "rope", "rope-frequencies", "sinusoidal"])
def test_a_size_the_implementation_rejects_fails_alone_and_the_others_are_checked(family: str) -> None:
    if battery.family_spec(family).screen is None:
        pytest.skip(f"the {family} family defines no screen")
    function, size = _rejecting(family)
    settings = dataclasses.replace(SETTINGS[family], examples=3)
    report = run_battery(family, function, settings)
    shown = battery.family_spec(family).sizes[1]
    failed = [o for o in report.properties if not o.passed]
    assert [o.name for o in failed] == [f"contract at {shown}={size}"], [o.message for o in failed]
    assert failed[0].label == "raises" and f"size {size} is not supported" in failed[0].message
    assert report.identified is not None and report.identified.matches
    assert not report.passed and {f.label for f in report.findings} & battery.ERRORS == {"raises"}


def test_an_implementation_rejecting_every_size_fails_every_property_unrun() -> None:
    report = run_battery("alibi", alibi.powers_of_two_only, Settings(examples=3, max_pos=8, heads=(3, 5)))
    names = [o.name for o in report.properties]
    assert names[:2] == ["contract at n_heads=3", "contract at n_heads=5"]
    assert all(not o.passed and o.label == "raises" for o in report.properties)
    assert "not run" in report.properties[-1].message and report.identified is None


def test_errors_and_unusable_screens_are_labels_and_conventions_are_not_errors() -> None:
    assert set(battery.LABELS) >= battery.ERRORS >= battery.UNUSABLE
    conventions = {"interleaved-layout", "half-split-layout", "partial-rotary", "odd-d", "position-offset"}
    conventions |= {"wrong-base", "exponent-d-2", "low-precision", "writes-stdout"}
    conventions |= {label for label in battery.LABELS if label.startswith("scaling-")}
    assert not conventions & battery.ERRORS
    assert {"wrong-slopes", "bias-sign", "equal-frequencies", "raises", "mutates-input"} <= battery.ERRORS


def test_a_finding_that_is_an_error_fails_the_report_where_every_property_holds() -> None:
    finding = battery.finding("wrong-slopes", "2^(−8h/n) at n = 3")
    holds = battery.Outcome("shape", True, "exact", "1 call")
    assert not Report("t", "alibi", (holds,), None, (finding,)).passed
    convention = battery.finding("half-split-layout", "pairs i and i + d/2")
    assert Report("t", "rope", (holds,), None, (convention,)).passed
