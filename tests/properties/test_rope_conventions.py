"""The calling conventions of real RoPE code (`properties.battery.rope_conventions`): each is recognised from
the object itself and checked with no adapter, on imitations of each library's shape with one real bug
each, and on the libraries themselves where they are installed (the `libraries` extra)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from pe_verify.properties.battery import Backend, Settings, run_battery
from pe_verify.properties.battery.families import rope as battery_rope
from pe_verify.properties.battery.rope_conventions import BY_NAME, CONVENTIONS, axial, detect

torch = pytest.importorskip("torch")

IMPLEMENTATIONS = "implementations.rope_conventions"
QUICK = Settings(ds=(8, 16), examples=5)


def target(spec: str) -> Any:
    module, _, name = spec.rpartition(":")
    found: Any = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def run(function: Any, settings: Settings = QUICK) -> Any:
    return run_battery("rope", function, settings, Backend("torch"))


def labels(report: Any) -> set[str]:
    return {f.label for f in report.findings}


#: Each imitation, the convention it must be recognised as, and the layout it rotates in.
CORRECT = [
    (f"{IMPLEMENTATIONS}.meta:apply_rotary_emb", "freqs-cis", "interleaved"),
    (f"{IMPLEMENTATIONS}.cos_sin:apply_rotary_pos_emb", "cos-sin", "half_split"),
    (f"{IMPLEMENTATIONS}.cos_sin:ToyRotaryEmbedding", "rotary-module", "half_split"),
    (f"{IMPLEMENTATIONS}.input_pos:RotaryEmbedding", "input-pos", "interleaved"),
    (f"{IMPLEMENTATIONS}.input_pos:make", "factory", "interleaved"),
]


@pytest.mark.parametrize(("spec", "convention", "layout"), CORRECT)
def test_each_convention_is_recognised_and_checked_without_an_adapter(
    spec: str, convention: str, layout: str
) -> None:
    function = target(spec)
    assert detect(function).name == convention
    report = run(function)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified.matches and report.identified.parameters["layout"] == layout


@pytest.mark.parametrize(
    ("spec", "failing"),
    [
        # cos and sin right, pairs wrong (cascadia #69, Megatron-Bridge #4195): no pair turns by one angle
        (f"{IMPLEMENTATIONS}.pairs_wrong:apply_rotary_pos_emb", "norm"),
        # cos and sin taken for angles (Megatron-LM #7465): position 0 is no longer the identity
        (f"{IMPLEMENTATIONS}.cos_sin_as_angles:apply_rotary_pos_emb", "equal-positions"),
        # positions ignored: row j is turned to position j, so a row's turn depends on its place in the call
        (f"{IMPLEMENTATIONS}.input_pos:IgnoresInputPos", "batch"),
    ],
)
def test_each_convention_s_real_bug_fails(spec: str, failing: str) -> None:
    report = run(target(spec))
    assert failing in {o.name for o in report.properties if not o.passed}


def test_an_apply_function_alone_gets_its_module_s_producer_or_the_suite_s_table() -> None:
    paired = battery_rope.adapt(
        target(f"{IMPLEMENTATIONS}.cos_sin:apply_rotary_pos_emb"), "cos-sin", Backend("torch"), QUICK
    )
    assert paired.built(8).source == "cos, sin from ToyRotaryEmbedding"
    alone = battery_rope.adapt(
        target(f"{IMPLEMENTATIONS}.cos_sin_as_angles:apply_rotary_pos_emb"),
        "cos-sin",
        Backend("torch"),
        QUICK,
    )
    assert alone.built(8).source.startswith("the suite's cos, sin table")


def test_a_convention_named_overrides_detection_and_an_unknown_one_is_refused() -> None:
    function = target(f"{IMPLEMENTATIONS}.cos_sin:apply_rotary_pos_emb")
    assert battery_rope.detect(function, Settings(convention="cos-sin")) == "cos-sin"
    with pytest.raises(ValueError, match="--convention must be one of"):
        battery_rope.detect(function, Settings(convention="complex"))
    with pytest.raises(ValueError, match="must fit one of the conventions"):
        battery_rope.detect(lambda a, b, c, d, e, f: a, Settings())


def test_every_convention_names_a_real_example_and_is_detectable() -> None:
    assert set(BY_NAME) == {c.name for c in CONVENTIONS}
    assert all(c.example and c.contract for c in CONVENTIONS)


#: Real libraries' code, checked as it is (the `libraries` extra pins their versions); each with the
#: convention it must be recognised as and the layout it rotates in.
LIBRARIES = [
    ("transformers.models.llama.modeling_llama:apply_rotary_pos_emb", "cos-sin", "half_split"),
    ("transformers.models.llama.modeling_llama:LlamaRotaryEmbedding", "rotary-module", "half_split"),
    ("transformers.models.gemma3.modeling_gemma3:apply_rotary_pos_emb", "cos-sin", "half_split"),
    # a partial rotary factor its attention slices q and k for (the apply function rotates what it is given)
    ("transformers.models.phi.modeling_phi:PhiRotaryEmbedding", "rotary-module", "half_split"),
    # forward(x, position_ids=None)
    ("transformers.models.phimoe.modeling_phimoe:PhimoeRotaryEmbedding", "rotary-module", "half_split"),
    # one rotation per layer type, none for full attention (NoPE): the sliding layers' is read
    ("transformers.models.beam.modeling_beam:BeamRotaryEmbedding", "rotary-module", "half_split"),
    # a helper taking (x, cos, sin) defined before apply_rotary_pos_emb
    ("transformers.models.gpt_oss.modeling_gpt_oss:GptOssRotaryEmbedding", "rotary-module", "half_split"),
    # apply_rotary_pos_emb(x, cos, sin): one tensor at a time
    ("transformers.models.gemma3n.modeling_gemma3n:Gemma3nRotaryEmbedding", "rotary-module", "half_split"),
    # a vision apply defined first; the text rotary module's config is the composite config's text part
    (
        "transformers.models.qwen3_vl.modeling_qwen3_vl:Qwen3VLTextRotaryEmbedding",
        "rotary-module",
        "half_split",
    ),
    # (sin, cos) from the module, apply(tensor, sin, cos) on [b, s, h, d], the head it rotates in rotary_dim
    ("transformers.models.gptj.modeling_gptj:GPTJRotaryEmbedding", "rotary-module", "interleaved"),
    # head_dim a read-only property of the config (the hidden size over the heads)
    ("transformers.models.falcon.modeling_falcon:FalconRotaryEmbedding", "rotary-module", "half_split"),
    # M-RoPE sections laid out for a head of 128 ([16, 24, 24]), scaled to the head checked
    ("transformers.models.qwen2_vl.modeling_qwen2_vl:Qwen2VLRotaryEmbedding", "rotary-module", "half_split"),
    ("torchtune.modules:RotaryPositionalEmbeddings", "input-pos", "interleaved"),
    ("rotary_embedding_torch:RotaryEmbedding", "offset", "interleaved"),
    ("rotary_embedding_torch.rotary_embedding_torch:apply_rotary_emb", "angles", "interleaved"),
    ("x_transformers.x_transformers:apply_rotary_pos_emb", "angles", "interleaved"),
    ("x_transformers.x_transformers:RotaryEmbedding", "angles", "interleaved"),
    ("diffusers.models.embeddings:apply_rotary_emb", "freqs-cis", "interleaved"),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("spec", "convention", "layout"), LIBRARIES)
def test_real_libraries_are_checked_as_they_are(spec: str, convention: str, layout: str) -> None:
    pytest.importorskip(spec.partition(".")[0].partition(":")[0])
    function = target(spec)
    assert detect(function).name == convention
    report = run(function)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified.matches and report.identified.parameters["layout"] == layout


def test_dtype_hands_the_implementation_bfloat16_tensors_as_a_bfloat16_model_does() -> None:
    bf16 = Settings(ds=(8, 16), examples=5, dtype="bfloat16")
    report = run(target(f"{IMPLEMENTATIONS}.input_pos:RotaryEmbedding"), bf16)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    broken = run(target(f"{IMPLEMENTATIONS}.input_pos:PositionsInInputDtype"), bf16)
    assert not broken.passed and "low-precision" in labels(broken)
    assert run(
        target(f"{IMPLEMENTATIONS}.input_pos:PositionsInInputDtype")
    ).passed  # float32 positions are exact


#: Each precomputed table, the layout its pairs turn in and what the identification says it was.
TABLES = [
    ("FREQS_CIS", "interleaved", "complex freqs_cis [512, 8] in float32"),
    ("COS_SIN", "half_split", "(cos, sin) pair [512, 16] in float32"),
    ("COS_SIN_CACHE", "half_split", "cat(cos, sin) cache [512, 16] in float32"),
    ("STACKED", "interleaved", "cos and sin stacked [512, 8, 2] in float32"),
    ("BFLOAT16", "half_split", "(cos, sin) pair [512, 16] in bfloat16"),
]


@pytest.mark.parametrize(("name", "layout", "form"), TABLES)
def test_a_precomputed_table_is_checked_at_its_own_d_and_length(name: str, layout: str, form: str) -> None:
    table = target(f"{IMPLEMENTATIONS}.tables:{name}")
    assert detect(table).name == "table"
    report = run(table, Settings(examples=5))
    assert report.passed, [o.message for o in report.properties if not o.passed]
    identified = report.identified
    assert identified.matches and identified.parameters["layout"] == layout
    assert identified.parameters["d"] == 16
    called = identified.parameters["called with"]
    assert form in called
    assert "positions 0 … 511 only, so positions beyond its length cannot be checked" in called


@pytest.mark.parametrize(
    ("name", "failing"),
    [
        # positions held in bfloat16 (transformers #29285): 256 and 257 get one row
        ("BFLOAT16_POSITIONS", "relative"),
        # torch.polar(freqs, ones): every angle 1 rad, every length an angle, so no row keeps a norm
        ("POLAR_SWAPPED", "norm"),
    ],
)
def test_a_broken_table_fails(name: str, failing: str) -> None:
    report = run(target(f"{IMPLEMENTATIONS}.tables:{name}"), Settings(examples=5))
    assert failing in {o.name for o in report.properties if not o.passed}


def test_a_table_fixes_the_settings_to_its_d_and_length_and_refuses_another_d() -> None:
    table = target(f"{IMPLEMENTATIONS}.tables:COS_SIN")
    fixed = battery_rope.fixed(table, Settings(max_pos=65536))
    assert (fixed.ds, fixed.max_pos) == ((16,), 512)
    assert battery_rope.fixed(table, Settings(ds=(16,), max_pos=100)).max_pos == 100
    with pytest.raises(ValueError, match="the table holds d = 16 only; --d 8 16 cannot be checked on it"):
        battery_rope.fixed(table, Settings(ds=(8, 16)))
    with pytest.raises(ValueError, match="a int is no precomputed RoPE table"):
        battery_rope.fixed(3, Settings(convention="table"))
    with pytest.raises(ValueError, match="the table has 1 row: a rotation needs two positions"):
        battery_rope.fixed(table[0][:1], Settings())


def test_a_table_of_a_few_rows_is_probed_within_them() -> None:
    table = target(f"{IMPLEMENTATIONS}.tables:COS_SIN")
    report = run((table[0][:3], table[1][:3]), Settings(examples=5))
    assert report.passed, [o.message for o in report.properties if not o.passed]


def test_pe_verify_check_takes_a_module_level_table(capsys: pytest.CaptureFixture[str]) -> None:
    """In its child process too: the one d the table holds is screened, not the default four."""
    from pe_verify import cli

    status = cli.main(["--quiet", "check", f"{IMPLEMENTATIONS}.tables:POLAR_SWAPPED", "--family", "rope"])
    out = capsys.readouterr().out
    assert status == 1 and "FAIL  norm" in out and "contract at" not in out
    assert "convention = table" in out and "d = 16" in out


def test_assert_rope_names_a_broken_table_by_its_kind() -> None:
    from pe_verify.testing import assert_rope

    assert_rope(target(f"{IMPLEMENTATIONS}.tables:STACKED"))
    named = r"^the complex freqs_cis table fails the rope battery at d=\[16\], "
    with pytest.raises(AssertionError, match=named):
        assert_rope(target(f"{IMPLEMENTATIONS}.tables:POLAR_SWAPPED"))


@pytest.mark.filterwarnings("ignore")
def test_an_axial_vision_rotary_class_is_refused_as_no_token_rotation() -> None:
    pytest.importorskip("transformers")
    vision = target("transformers.models.qwen2_vl.modeling_qwen2_vl:Qwen2VLVisionRotaryEmbedding")
    with pytest.raises(ValueError, match="its config's rope type is axial"):
        run(vision)
    assert not axial(target("transformers.models.llama.modeling_llama:LlamaRotaryEmbedding"))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    ("spec", "why"),
    [
        # built by its model from another config: its own config class holds no rope parameters
        ("transformers.models.pi05.modeling_pi05:PI05RotaryEmbedding", "has no attribute 'rope_parameters'"),
        # complex freqs_cis with no apply function for a rotary module's output beside it
        ("transformers.models.llama4.modeling_llama4:Llama4TextRotaryEmbedding", "no apply function"),
        # a config whose rope parameters lack the layer type its module asks for
        (
            "transformers.models.cohere_compass.modeling_cohere_compass:CohereCompassRotaryEmbedding",
            "cannot be built from its config class at d = 16",
        ),
    ],
)
def test_a_rotary_class_the_suite_cannot_build_is_a_usage_error_not_a_finding(spec: str, why: str) -> None:
    pytest.importorskip("transformers")
    with pytest.raises(ValueError, match=why):
        run(target(spec))
