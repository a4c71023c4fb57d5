"""The `rope-frequencies` battery on a regression corpus of ``inv_freq(d)`` implementations.

The corpus re-expresses the Hugging Face ``modeling_rope_utils.py`` rules in numpy, independently of
`properties.encodings.scaling` (so a wrong reference there would show here): default RoPE, Llama 2 and Llama 3
bases, linear, NTK-aware, dynamic NTK, YaRN and Llama 3 scaling, in float64 and float32. Each must pass and be
identified with its parameters. Each bug class must fail its property (or be flagged) under its label, with
a concrete counterexample: the Llama 3 rule that returns the unscaled frequencies (transformers PR #32330),
the exponent −i/d, increasing order, a negative entry, NaN, raising, a wrong shape, noise between calls,
a fastest frequency above 1, and a wrong arity (a usage error). Degenerate vectors (every value 1 from
integer division, two pairs at one frequency, zeros) are one finding each, never a crash, and a d the
implementation rejects fails alone while the others are checked. An (inv_freq, attention_factor) pair has its
factor held to the identified rule's (a factor squared, or one linear scaling has not, is a finding), and
transformers' own init functions, called with a config per d, are identified with the rule of their
rope_type (an init function without its ``1 /`` fails).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from implementations.rope_frequencies import (
    LINEAR,
    LLAMA3,
    LLAMA3_BASE,
    NTK,
    YARN,
    constant,
    default_rope,
    default_rope_float32,
    doubled,
    equal_pair,
    full_width,
    increasing,
    init_without_reciprocal,
    integer_division,
    linear,
    linear_pair_with_factor,
    llama3,
    nan_entry,
    negative_entry,
    ntk,
    rejects_small,
    yarn,
    yarn_pair,
    yarn_pair_squared,
    zeros,
)

from pe_verify.check import require_expectable
from pe_verify.properties.battery import Report, Settings, expected, properties_of, run_battery
from pe_verify.properties.battery.families.rope_frequencies import FAMILY_NAME, UNKNOWN, VARIANTS
from pe_verify.properties.encodings import scaling

SETTINGS = Settings(examples=20)


def check(function, settings: Settings = SETTINGS) -> Report:
    return run_battery(FAMILY_NAME, function, settings)


def labels(report: Report) -> set[str]:
    return {f.label for f in report.findings}


def failed(report: Report, name: str):
    (result,) = [o for o in report.properties if o.name == name]
    assert not result.passed, result.message
    return result


# --------------------------------------------------------------------- the corpus (numpy, Hugging Face)


def llama2(d: int) -> np.ndarray:
    return default_rope(d, 10000.0)


def llama3_unscaled(d: int) -> np.ndarray:
    return default_rope(d, LLAMA3_BASE)


DYNAMIC = 2.0
DYNAMIC_L0 = 4096
DYNAMIC_LENGTH = 8192


def dynamic_ntk(d: int) -> np.ndarray:
    """``_compute_dynamic_ntk_parameters`` at seq_len = 8192 > L₀ = 4096."""
    grown = (DYNAMIC * DYNAMIC_LENGTH / DYNAMIC_L0) - (DYNAMIC - 1)
    return default_rope(d, 10000.0 * grown ** (d / (d - 2)))


def yarn_paper(d: int, base: float = 10000.0, **given: float) -> np.ndarray:
    """YaRN as Peng et al. write it (Eq. 18): γ(r) = clamp((r − α)/(β − α), 0, 1) in r = L₀/λ = L₀θ/(2π)."""
    p = {**YARN, **given}
    theta = 1.0 / base ** (np.arange(0, d, 2) / d)
    r = p["original_max_position_embeddings"] * theta / (2 * math.pi)
    gamma = np.clip((r - p["beta_slow"]) / (p["beta_fast"] - p["beta_slow"]), 0.0, 1.0)
    return (1 - gamma) * theta / p["factor"] + gamma * theta


#: Per-pair factors shaped like Phi-3's (1 for the fastest pairs, growing for the slow ones), head dim 96.
LONGROPE_D = 96
LONG_FACTOR = tuple(round(1.0 + 60.0 * (i / 47) ** 2, 2) for i in range(48))


#: Published LongRoPE tables, as their config.json files print them (rope_scaling long_factor and
#: short_factor): microsoft/Phi-3-vision-128k-instruct (head dim 96, rope_theta 10000; type "su").
PHI3_VISION_LONG = (
    1.0299999713897705,
    1.0499999523162842,
    1.0499999523162842,
    1.0799999237060547,
    1.2299998998641968,
    1.2299998998641968,
    1.2999999523162842,
    1.4499999284744263,
    1.5999999046325684,
    1.6499998569488525,
    1.8999998569488525,
    2.859999895095825,
    3.68999981880188,
    5.419999599456787,
    5.489999771118164,
    5.489999771118164,
    9.09000015258789,
    11.579999923706055,
    15.65999984741211,
    15.769999504089355,
    15.789999961853027,
    18.360000610351562,
    21.989999771118164,
    23.079999923706055,
    30.009998321533203,
    32.35000228881836,
    32.590003967285156,
    35.56000518798828,
    39.95000457763672,
    53.840003967285156,
    56.20000457763672,
    57.95000457763672,
    59.29000473022461,
    59.77000427246094,
    59.920005798339844,
    61.190006256103516,
    61.96000671386719,
    62.50000762939453,
    63.3700065612793,
    63.48000717163086,
    63.48000717163086,
    63.66000747680664,
    63.850006103515625,
    64.08000946044922,
    64.760009765625,
    64.80001068115234,
    64.81001281738281,
    64.81001281738281,
)
#: Its short_factor.
PHI3_VISION_SHORT = (
    1.05,
    1.05,
    1.05,
    1.1,
    1.1,
    1.1,
    1.2500000000000002,
    1.2500000000000002,
    1.4000000000000004,
    1.4500000000000004,
    1.5500000000000005,
    1.8500000000000008,
    1.9000000000000008,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.1000000000000005,
    2.1000000000000005,
    2.2,
    2.3499999999999996,
    2.3499999999999996,
    2.3499999999999996,
    2.3499999999999996,
    2.3999999999999995,
    2.3999999999999995,
    2.6499999999999986,
    2.6999999999999984,
    2.8999999999999977,
    2.9499999999999975,
    3.049999999999997,
    3.049999999999997,
    3.049999999999997,
)
#: openbmb/VoxCPM2's language model (MiniCPM's LongRoPE; head dim 128, rope_theta 10000): long_factor =
#: short_factor, the first below 1.
VOXCPM2_FACTORS = (
    0.9977997200264581,
    1.014658295992452,
    1.0349680404997148,
    1.059429246056193,
    1.0888815016813513,
    1.1243301355211495,
    1.166977103606075,
    1.2182568066927284,
    1.2798772354275727,
    1.3538666751582975,
    1.4426259039919596,
    1.5489853358570191,
    1.6762658237220625,
    1.8283407612492941,
    2.0096956085876183,
    2.225478927469756,
    2.481536379650452,
    2.784415934557119,
    3.1413289096347365,
    3.560047844772632,
    4.048719380066383,
    4.615569542115128,
    5.2684819496549835,
    6.014438591970396,
    6.858830049237097,
    7.804668263503327,
    8.851768731513417,
    9.99600492938444,
    11.228766118181639,
    12.536757560834843,
    13.902257701387796,
    15.303885189125953,
    16.717837610115794,
    18.119465097853947,
    19.484965238406907,
    20.792956681060105,
    22.02571786985731,
    23.16995406772833,
    24.217054535738416,
    25.16289275000465,
    26.007284207271347,
    26.753240849586767,
    27.40615325712662,
    27.973003419175363,
    28.461674954469114,
    28.880393889607006,
    29.237306864684626,
    29.540186419591297,
    29.79624387177199,
    30.01202719065413,
    30.193382037992453,
    30.34545697551969,
    30.47273746338473,
    30.579096895249787,
    30.66785612408345,
    30.741845563814174,
    30.80346599254902,
    30.85474569563567,
    30.897392663720595,
    30.932841297560394,
    30.962293553185553,
    30.986754758742034,
    31.007064503249293,
    31.02392307921529,
)


def longrope(d: int, ext_factors: tuple[float, ...] = LONG_FACTOR, base: float = 10000.0) -> np.ndarray:
    """``_compute_longrope_parameters`` beyond original_max_position_embeddings, in float32 as torch does:
    1 / (ext_factors · base^(arange(0, d, 2)/d))."""
    ext = np.asarray(ext_factors, dtype=np.float32)
    shape = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    return np.float32(1.0) / (ext * np.float32(base) ** shape)


def llama3_float32(d: int) -> np.ndarray:
    return llama3(d, np.float32)


# ---------------------------------------------------------------------------- the corpus passes


def test_every_property_is_registered() -> None:
    names = [p.name for p in properties_of(FAMILY_NAME)]
    assert names == [
        "one-per-pair",
        "finite",
        "positive",
        "decreasing",
        "deterministic",
        "fastest-at-most-one",
    ]


@pytest.mark.parametrize(
    ("function", "settings"),
    [(default_rope, SETTINGS), (default_rope_float32, SETTINGS), (llama2, Settings(examples=20, ds=(128,)))],
    ids=["default", "default-float32", "llama2-d128"],
)
def test_unscaled_rope_is_identified_as_none(function, settings: Settings) -> None:
    report = check(function, settings)
    assert report.passed, [o.message for o in report.properties]
    assert report.identified is not None
    assert (report.identified.variant, report.identified.matches) == ("none", True)
    assert report.identified.parameters["base"] == 10000.0
    assert report.identified.max_abs_deviation <= report.identified.parameters["tolerance"]
    assert labels(report) == {"scaling-none"}


def widened_float32(d: int) -> np.ndarray:
    """``1.0 / (base ** (torch.arange(0, d, 2).float() / d))`` returned as float64."""
    return default_rope_float32(d).astype(np.float64)


def test_float32_frequencies_returned_as_float64_are_the_rule_computed_in_float32() -> None:
    report = check(widened_float32)
    assert report.passed
    identified = report.identified
    assert (identified.variant, identified.matches) == ("none", True)
    assert identified.parameters["computed_in"] == "float32"
    assert identified.parameters["dtype"] == "float64"
    assert labels(report) == {"scaling-none", "low-precision"}
    (message,) = [f.message for f in report.findings if f.label == "low-precision"]
    assert "the none rule, computed in float32" in message


@pytest.mark.slow
def test_float32_yarn_returned_as_float64_is_yarn_computed_in_float32() -> None:
    report = check(lambda d: yarn(d).astype(np.float32).astype(np.float64))
    assert report.identified.variant == "yarn" and report.identified.parameters["computed_in"] == "float32"
    assert {k: report.identified.parameters[k] for k in YARN} == YARN


def test_widened_frequencies_one_float64_ulp_off_are_unknown_scaling() -> None:
    def one_ulp_off(d: int) -> np.ndarray:
        theta = widened_float32(d)
        theta[d // 4] = np.nextafter(theta[d // 4], 0.0)
        return theta

    report = check(one_ulp_off)
    assert report.identified.variant == UNKNOWN
    assert "computed_in" not in report.identified.parameters
    assert "low-precision" not in labels(report)


def test_float64_frequencies_are_not_called_low_precision() -> None:
    report = check(default_rope)
    assert "computed_in" not in report.identified.parameters


def test_llama3_base_is_a_wrong_base_against_the_declared_10000() -> None:
    report = check(llama3_unscaled)
    assert report.passed
    assert report.identified.variant == "none"
    assert report.identified.parameters["base"] == LLAMA3_BASE
    assert labels(report) == {"scaling-none", "wrong-base"}


def test_llama3_base_matches_when_declared() -> None:
    report = check(llama3_unscaled, Settings(examples=20, base=LLAMA3_BASE))
    assert report.passed
    assert report.identified.variant == "none"
    assert report.identified.parameters["base"] == LLAMA3_BASE
    assert labels(report) == {"scaling-none"}


def test_linear_scaling_is_identified_with_its_factor() -> None:
    report = check(linear)
    assert report.passed
    assert report.identified.variant == "linear"
    assert report.identified.parameters["factor"] == LINEAR
    assert labels(report) == {"scaling-linear"}


def test_ntk_scaling_is_identified_and_says_it_may_be_dynamic() -> None:
    report = check(ntk)
    assert report.passed
    assert report.identified.variant == "ntk"
    assert report.identified.parameters["factor"] == NTK
    (message,) = [f.message for f in report.findings if f.label == "scaling-ntk"]
    assert "dynamic NTK" in message


def test_dynamic_ntk_at_one_length_is_ntk_with_the_grown_factor() -> None:
    report = check(dynamic_ntk)
    assert report.identified.variant == "ntk"
    grown = DYNAMIC * DYNAMIC_LENGTH / DYNAMIC_L0 - (DYNAMIC - 1)
    assert report.identified.parameters["factor"] == grown
    assert "scaling-dynamic-ntk" not in labels(report)


def test_yarn_is_identified_with_its_parameters() -> None:
    report = check(yarn)
    assert report.passed
    assert report.identified.variant == "yarn"
    parameters = report.identified.parameters
    assert {k: parameters[k] for k in YARN} == YARN
    assert parameters["truncate"] is True
    assert labels(report) == {"scaling-yarn"}


def test_yarn_without_truncation_and_another_context_is_identified() -> None:
    report = check(lambda d: yarn(d, truncate=False, factor=4.0, original_max_position_embeddings=32768))
    assert report.identified.variant == "yarn"
    parameters = report.identified.parameters
    assert parameters["truncate"] is False
    assert (parameters["factor"], parameters["original_max_position_embeddings"]) == (4.0, 32768)


def test_yarn_as_the_paper_writes_it_is_yarn_with_the_paper_ramp() -> None:
    report = check(yarn_paper)
    assert report.passed
    parameters = report.identified.parameters
    assert report.identified.variant == "yarn"
    assert {k: parameters[k] for k in YARN} == YARN
    assert parameters["ramp"] == "paper" and "truncate" not in parameters
    (message,) = [f.message for f in report.findings if f.label == "scaling-yarn"]
    assert "ramp=paper" in message and "only α/L₀ and β/L₀" in message


def test_the_paper_ramp_with_other_alpha_and_beta_is_fitted() -> None:
    given = {"factor": 8.0, "original_max_position_embeddings": 2048, "beta_fast": 6.0, "beta_slow": 0.375}
    report = check(lambda d: yarn_paper(d, **given))
    parameters = report.identified.parameters
    assert report.identified.variant == "yarn" and parameters["ramp"] == "paper"
    assert {k: parameters[k] for k in given} == given


def test_the_code_ramp_is_named_code() -> None:
    parameters = check(yarn).identified.parameters
    assert (parameters["ramp"], parameters["truncate"]) == ("code", True)


def test_a_ramp_linear_in_r_that_is_no_yarn_blend_is_unknown_scaling() -> None:
    def bent(d: int) -> np.ndarray:  # the paper's blend with every third pair 0.1 % off
        return yarn_paper(d) * (1 + 1e-3 * (np.arange(d // 2) % 3 == 1))

    report = check(bent)
    assert report.identified.variant == UNKNOWN
    assert "unknown-scaling" in labels(report)


LONGROPE_SETTINGS = Settings(examples=20, ds=(LONGROPE_D,))


@pytest.mark.slow
@pytest.mark.parametrize("widened", [False, True], ids=["float32", "float32 returned as float64"])
def test_longrope_is_identified_with_its_factors(widened: bool) -> None:
    report = check(lambda d: longrope(d).astype(np.float64 if widened else np.float32), LONGROPE_SETTINGS)
    assert report.passed
    identified = report.identified
    assert (identified.variant, identified.matches) == ("longrope", True)
    np.testing.assert_allclose(identified.parameters["factors"], LONG_FACTOR, rtol=1e-5)
    # widened, the factors θ_i/θ'_i absorb float32's rounding: LongRoPE matches at float64 already
    assert "computed_in" not in identified.parameters
    assert "scaling-longrope" in labels(report) and "unknown-scaling" not in labels(report)
    assert require_expectable(FAMILY_NAME, "longrope") == "longrope"
    assert expected(report, "longrope").passed and not expected(report, "yarn").passed


@pytest.mark.parametrize(
    ("d", "ext"),
    [(96, PHI3_VISION_LONG), (96, PHI3_VISION_SHORT), (128, VOXCPM2_FACTORS)],
    ids=["Phi-3-vision long_factor", "Phi-3-vision short_factor", "VoxCPM2, a factor below 1"],
)
def test_published_longrope_tables_are_identified(d: int, ext: tuple[float, ...]) -> None:
    report = check(lambda n: longrope(n, ext), Settings(examples=20, ds=(d,)))
    assert (report.identified.variant, report.identified.matches) == ("longrope", True)
    np.testing.assert_allclose(report.identified.parameters["factors"], ext, rtol=1e-5)
    assert "scaling-longrope" in labels(report) and "unknown-scaling" not in labels(report)


@pytest.mark.parametrize(
    "ext",
    [
        (*LONG_FACTOR[:30], LONG_FACTOR[30] / 2, *LONG_FACTOR[31:]),  # one slow pair sped up: not monotone
        (*PHI3_VISION_LONG[:-1], PHI3_VISION_LONG[-2] * 0.9),  # the slowest pair sped up past its neighbour
    ],
    ids=["not non-decreasing", "Phi-3-vision's last factor lowered"],
)
def test_per_pair_factors_that_are_not_longropes_are_unknown_scaling(ext: tuple[float, ...]) -> None:
    report = check(lambda d: longrope(d, ext), LONGROPE_SETTINGS)
    assert report.identified.variant == UNKNOWN
    assert "unknown-scaling" in labels(report) and "scaling-longrope" not in labels(report)


@pytest.mark.slow
@pytest.mark.parametrize("function", [llama3, llama3_float32], ids=["float64", "float32"])
def test_llama3_is_identified_with_its_parameters(function) -> None:
    report = check(function, Settings(examples=20, base=LLAMA3_BASE))
    assert report.passed
    assert report.identified.variant == "llama3"
    assert report.identified.matches
    assert {k: report.identified.parameters[k] for k in LLAMA3} == LLAMA3
    assert labels(report) == {"scaling-llama3"}


@pytest.mark.slow
def test_llama3_under_the_declared_10000_is_still_llama3_with_a_wrong_base() -> None:
    report = check(llama3)
    assert report.identified.variant == "llama3"
    assert report.identified.parameters["base"] == LLAMA3_BASE
    assert labels(report) == {"scaling-llama3", "wrong-base"}


def test_the_deviation_is_relative_and_the_variant_a_known_string() -> None:
    report = check(yarn)
    assert report.identified.variant in VARIANTS
    assert "relative" in report.identified.parameters["deviation"]
    assert report.as_json()["identified"]["variant"] == "yarn"


def test_one_d_cannot_tell_a_wrong_base_from_ntk_and_says_so() -> None:
    report = check(llama3_unscaled, Settings(examples=20, ds=(128,)))
    assert report.identified.variant == "none"
    assert report.identified.parameters["base"] == LLAMA3_BASE
    (message,) = [f.message for f in report.findings if f.label == "scaling-none"]
    assert "also ntk" in message and "several d" in message


@pytest.mark.slow
def test_identification_works_at_large_d() -> None:
    settings = Settings(examples=5, ds=(4096,))
    report = check(yarn, settings)
    assert report.identified.variant == "yarn"


# ---------------------------------------------------------------------------- the bug classes


def llama3_pr_32330(d: int) -> np.ndarray:
    """transformers PR #32330: the Llama 3 rule computes the scaled frequencies but returns the unscaled."""
    inv_freq = default_rope(d, LLAMA3_BASE)
    _scaled = llama3(d)
    return inv_freq


def test_llama3_returning_unscaled_frequencies_is_identified_as_none() -> None:
    report = check(llama3_pr_32330, Settings(examples=20, base=LLAMA3_BASE))
    assert report.passed  # every property holds: only the identification shows the bug
    assert report.identified.variant == "none"
    assert "scaling-llama3" not in labels(report)
    assert "scaling-none" in labels(report)


def test_exponent_minus_i_over_d_is_a_wrong_exponent() -> None:
    report = check(lambda d: 10000.0 ** (-np.arange(d // 2) / d))
    assert report.identified.parameters["exponent"] == "-i/d"
    assert labels(report) == {"wrong-exponent"}


def test_exponent_over_d_minus_2_is_flagged() -> None:
    report = check(lambda d: 10000.0 ** (-2.0 * np.arange(d // 2) / (d - 2)))
    assert labels(report) == {"exponent-d-2"}


def test_increasing_order_is_not_decreasing_with_the_pair_shown() -> None:
    report = check(increasing)
    result = failed(report, "decreasing")
    assert result.label == "not-decreasing"
    example = result.counterexample
    theta = increasing(example["d"])
    i = example["i"]
    assert theta[i + 1] >= theta[i]
    assert (example["theta[i]"], example["theta[i+1]"]) == (
        float(f"{theta[i]:.6g}"),
        float(f"{theta[i + 1]:.6g}"),
    )
    assert "not-decreasing" in labels(report)
    assert report.identified.variant == UNKNOWN


def test_a_negative_entry_is_not_positive() -> None:
    report = check(negative_entry)
    result = failed(report, "positive")
    assert result.label == "not-positive"
    example = result.counterexample
    assert example["i"] == example["d"] // 4
    assert example["theta[i]"] < 0
    assert report.identified is None
    assert "not-positive" in labels(report)


def test_nan_is_not_finite() -> None:
    report = check(nan_entry)
    result = failed(report, "finite")
    assert result.label == "not-finite"
    assert result.counterexample["index"] == [result.counterexample["d"] // 2 - 1]
    assert result.counterexample["value"] == "nan"
    assert failed(report, "decreasing").label == "not-finite"
    assert report.identified is None


def raising(d: int) -> np.ndarray:
    raise RuntimeError("rope_type not supported")


def test_raising_is_reported_as_raises() -> None:
    report = check(raising)
    assert all(o.label == "raises" for o in report.properties)
    assert "rope_type not supported" in report.properties[0].counterexample["message"]
    assert labels(report) == {"raises"}


def test_a_wrong_shape_is_caught() -> None:
    report = check(full_width)
    result = failed(report, "contract at d=64")  # every d: no property can run
    assert result.label == "wrong-shape" and "returned shape (64,), expected (32,)" in result.message
    assert "not run" in failed(report, "one-per-pair").message
    assert labels(report) == {"wrong-shape"} and report.identified is None


def test_a_shape_that_changes_between_calls_fails_one_per_pair() -> None:
    calls = iter(range(1000))
    report = check(lambda d: default_rope(d)[: d // 2 - next(calls) % 2])
    assert failed(report, "one-per-pair").label == "wrong-shape"


def test_a_d_that_raises_fails_alone_and_the_others_are_identified() -> None:
    report = check(rejects_small)
    assert [o.name for o in report.properties if not o.passed] == ["contract at d=64"]
    assert "head size 64 is not supported" in failed(report, "contract at d=64").message
    assert report.identified is not None and report.identified.variant == "none"
    assert not report.passed and labels(report) == {"raises", "scaling-none"}


@pytest.mark.parametrize("function", [integer_division, constant], ids=["integer division", "constant"])
def test_every_value_one_is_equal_frequencies_naming_integer_division(function) -> None:
    report = check(function)
    result = failed(report, "decreasing")
    assert result.label == "equal-frequencies"
    assert [o.name for o in report.properties if not o.passed] == ["decreasing"]
    (finding,) = report.findings
    assert finding.label == "equal-frequencies" and "integer division" in finding.message
    assert report.identified is not None and report.identified.variant == UNKNOWN
    assert not report.identified.matches and math.isfinite(report.identified.max_abs_deviation)


def test_two_pairs_at_one_frequency_are_equal_frequencies() -> None:
    report = check(equal_pair)
    assert failed(report, "decreasing").label == "equal-frequencies"
    assert labels(report) == {"equal-frequencies"}
    assert "pairs 0 and 1 turn alike" in report.findings[0].message
    assert report.identified is not None and report.identified.variant == UNKNOWN


def test_all_zeros_are_one_not_positive_finding() -> None:
    report = check(zeros)
    assert "every value of inv_freq(64) is 0" in failed(report, "positive").message
    assert failed(report, "decreasing").label == "not-positive"
    assert labels(report) == {"not-positive"} and report.identified is None


@pytest.mark.parametrize("ds", [(4,), (4, 8)])
def test_a_first_step_too_small_for_a_base_is_no_crash(ds: tuple[int, ...]) -> None:
    report = check(lambda d: 1.0 - 1e-16 * np.arange(d // 2), Settings(examples=3, ds=ds))
    assert report.identified is not None


def test_a_declared_base_of_one_is_a_usage_error() -> None:
    with pytest.raises(ValueError, match="base must be a finite number above 1"):
        check(default_rope, Settings(examples=3, base=1.0))


def test_a_wrong_arity_is_a_usage_error() -> None:
    with pytest.raises(ValueError, match="1 \\(inv_freq\\)"):
        check(lambda d, base: default_rope(d, base))


def test_a_default_argument_is_fine() -> None:
    assert check(lambda d, base=10000.0: default_rope(d, base)).passed


@pytest.mark.parametrize("ds", [(63,), (2,)])
def test_odd_or_tiny_dimensions_are_a_usage_error(ds: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="even integers ≥ 4"):
        check(default_rope, Settings(examples=5, ds=ds))


def noisy() -> object:
    generator = np.random.default_rng(7)

    def inv_freq(d: int) -> np.ndarray:
        return default_rope(d) * (1.0 + 1e-9 * generator.standard_normal(d // 2))

    return inv_freq


def test_noise_between_calls_is_nondeterministic() -> None:
    report = check(noisy())
    result = failed(report, "deterministic")
    assert result.label == "nondeterministic"
    example = result.counterexample
    assert example["first"] != example["second"]
    assert "nondeterministic" in labels(report)


def test_a_fastest_frequency_above_one_fails() -> None:
    report = check(doubled)
    result = failed(report, "fastest-at-most-one")
    assert result.label == "fast-pair-above-one"
    assert result.counterexample["theta[0]"] > 1
    assert report.identified.variant == UNKNOWN


def wiggled(d: int) -> np.ndarray:
    """Decreasing, deterministic, positive, but no known rule: a 1 % wiggle on the default frequencies."""
    return default_rope(d) * (1.0 + 0.01 * np.sin(np.arange(d // 2)))


@pytest.mark.slow
def test_no_known_rule_is_unknown_scaling_with_the_closest() -> None:
    report = check(wiggled)
    assert report.passed
    identified = report.identified
    assert (identified.variant, identified.matches) == (UNKNOWN, False)
    assert identified.parameters["closest"] in VARIANTS
    assert identified.max_abs_deviation > identified.parameters["tolerance"]
    (message,) = [f.message for f in report.findings if f.label == "unknown-scaling"]
    assert "closest" in message
    assert "d = 64, 128, 256" in message  # several d by default


# ---------------------------------------------- (inv_freq, attention_factor) and init functions of a config


def attention(report: Report) -> str:
    (message,) = [f.message for f in report.findings if f.label == "attention-factor"]
    return message


def test_an_attention_factor_returned_with_inv_freq_is_checked_against_the_rule() -> None:
    report = check(yarn_pair)
    assert report.passed and report.identified.variant == "yarn"
    assert "m = 1.27726 matches YaRN's 0.1·ln s + 1 = 1.27726 at s = 16" in attention(report)


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (yarn_pair_squared, "m = 1.63139 does not match YaRN's 0.1·ln s + 1 = 1.27726"),
        (linear_pair_with_factor, "m = 1.13863, which the linear rule does not have"),
    ],
    ids=["yarn-squared", "linear-with-a-factor"],
)
def test_an_attention_factor_the_rule_has_not_is_a_finding(function, words: str) -> None:
    report = check(function)
    assert report.identified.matches
    assert words in attention(report)


def test_an_attention_factor_that_is_no_number_fails_the_contract() -> None:
    report = check(lambda d: (default_rope(d), "1.0x"))
    assert not report.passed
    assert "returned an attention factor of type str, not a number" in report.properties[0].message


#: transformers' init functions by rope_type: the default one on a rotary class, the rest registered in
#: ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``; each with the rule it must be identified as (dynamic NTK at
#: seq_len None is unscaled) and the attention factor it returns, checked against that rule. Only YaRN's
#: runs by default.
TRANSFORMERS_RULES = [
    pytest.param("default", "none", None, marks=pytest.mark.slow),
    pytest.param("linear", "linear", None, marks=pytest.mark.slow),
    pytest.param("dynamic", "none", None, marks=pytest.mark.slow),
    pytest.param("yarn", "yarn", "matches YaRN's 0.1·ln s + 1 = 1.27726 at s = 16"),
    pytest.param("llama3", "llama3", None, marks=pytest.mark.slow),
    pytest.param("longrope", "longrope", "m = 1.1547 matches LongRoPE's", marks=pytest.mark.slow),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("rope_type", "variant", "words"), TRANSFORMERS_RULES)
def test_transformers_init_functions_are_checked_with_a_config_per_d(
    rope_type: str, variant: str, words: str | None
) -> None:
    pytest.importorskip("transformers", minversion="5.25.0")  # the libraries extra's pin
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    functions = {"default": LlamaRotaryEmbedding.compute_default_rope_parameters, **ROPE_INIT_FUNCTIONS}
    report = check(functions[rope_type])
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert (report.identified.variant, report.identified.matches) == (variant, True)
    if words is None:
        assert "attention-factor" not in labels(report)
    else:
        assert words in attention(report)


@pytest.mark.filterwarnings("ignore")
def test_an_init_function_of_a_config_with_a_wrong_inv_freq_fails() -> None:
    pytest.importorskip("transformers")
    report = check(init_without_reciprocal)
    failed = {o.name for o in report.properties if not o.passed}
    assert {"decreasing", "fastest-at-most-one"} <= failed


# ------------------------------------------------------- θ_0 ≤ 1 holds for every reference rule


def _twice(half: int) -> int:
    return 2 * half


@given(
    d=st.integers(2, 512).map(_twice),
    base=st.sampled_from([10000.0, 500000.0, 1e6, 1.5]),
    factor=st.floats(1.0, 64.0),
    context=st.sampled_from([2048, 4096, 8192, 131072]),
    truncate=st.booleans(),
    length=st.integers(1, 10**6),
)
def test_every_reference_rule_keeps_the_fastest_frequency_at_most_one(
    d: int, base: float, factor: float, context: int, truncate: bool, length: int
) -> None:
    rules = [
        scaling.rope_frequencies(d, base),
        scaling.linear_scaling_frequencies(d, base, factor),
        scaling.ntk_scaling_frequencies(d, base, factor),
        scaling.dynamic_ntk_frequencies(d, base, factor, length, context),
        scaling.yarn_frequencies(d, base, factor, context, truncate=truncate),
        scaling.llama3_frequencies(d, base, factor, 1.0, 4.0, context),
    ]
    for theta in rules:
        assert theta[0] <= 1.0
        assert np.all(np.diff(theta) < 0)  # and they are strictly decreasing, as `decreasing` asks


@pytest.mark.parametrize(
    ("inv_freq", "variant", "parameter", "value"),
    [
        # one d cannot tell a base of 10⁷ from NTK of 10⁴ by 947.5: the rounder number is the answer
        (lambda d: 1.0 / 1e7 ** (np.arange(0, d, 2) / d), "none", "base", 1e7),
        # ... and NTK of 10⁴ by 31 (dynamic NTK at 16 times its context) is not a base of 1.5·10⁶
        (lambda d: 1.0 / (1e4 * 31.0 ** (d / (d - 2))) ** (np.arange(0, d, 2) / d), "ntk", "factor", 31.0),
    ],
)
def test_at_one_d_the_rounder_of_a_base_and_an_ntk_factor_is_identified(
    inv_freq: Callable, variant: str, parameter: str, value: float
) -> None:
    report = run_battery("rope-frequencies", inv_freq, Settings(ds=(256,), examples=5))
    assert report.identified.variant == variant
    assert report.identified.parameters[parameter] == pytest.approx(value, rel=1e-6)
