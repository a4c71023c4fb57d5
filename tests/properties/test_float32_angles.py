"""Float32 angles computed as one product and as llama.cpp's recurrence: the float32 rounding decided
exactly, and the first parting position held against a plain scalar loop."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from pe_verify.properties.analyses.float32_angles import (
    first_parting,
    frequencies32,
    nearest_float32,
    ratio32,
)


def test_nearest_float32_rounds_ties_to_even_and_beats_double_rounding():
    with mpmath.workdps(40):
        assert nearest_float32(1 + mpmath.mpf(2) ** -24) == np.float32(1.0)  # a tie: to even
        assert nearest_float32(1 + 3 * mpmath.mpf(2) ** -24) == np.float32(1 + 2.0**-22)  # a tie: to even
        # just above a tie, by less than float64 can hold: double rounding would give the even neighbour
        above = 1 + mpmath.mpf(2) ** -24 + mpmath.mpf(2) ** -80
        assert nearest_float32(above) == np.float32(1 + 2.0**-23)
        assert nearest_float32(mpmath.pi) == np.float32(math.pi)


def _scalar_parting(base: str, d: int, positions: int, epsilon: float) -> int | None:
    theta, ratio = frequencies32(base, d), ratio32(base, d)
    limit = 2 * math.asin(epsilon / 2)
    for p in range(1, positions):
        angle = np.float32(p)
        for i in range(d // 2):
            gap = abs(float(np.float32(p) * theta[i]) - float(angle))
            if limit < gap < 2 * math.pi - limit:
                return p
            angle = np.float32(angle * ratio)
    return None


@pytest.mark.parametrize(
    ("base", "d", "positions", "epsilon"), [("500", 16, 3000, 2**-16), ("10000", 32, 3000, 2**-16)]
)
def test_first_parting_matches_a_scalar_loop(base, d, positions, epsilon):
    expected = _scalar_parting(base, d, positions, epsilon)
    assert expected is not None
    assert first_parting(base, d, positions, epsilon).first == expected


def test_one_pair_never_parts():
    """At d = 2 the recurrence is the position itself, as is the product by θ̂_0 = 1: nothing to find."""
    found = first_parting("10000", 2, 100000, 2**-20)
    assert found.first is None and found.largest == 0.0


def test_a_parting_within_the_context_is_a_llama_cpp_note():
    from pe_verify.properties.analyses.model_setup import GroupAnalysis, ModelAnalysis
    from pe_verify.properties.analyses.runtime_divergence import runtimes_record
    from pe_verify.properties.encodings.model_config import read_config
    from pe_verify.properties.encodings.runtimes import BY_NAME

    def llama_cpp(context: int) -> list[dict]:
        config = {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 1,
            "max_position_embeddings": context,
            "rope_theta": 10000.0,
        }
        setup = read_config(config)
        found = ModelAnalysis(setup, context, [GroupAnalysis(g, context) for g in setup.groups])
        record = runtimes_record(found, config, (BY_NAME["transformers-5"], BY_NAME["llama.cpp"]))
        return [f for g in record["groups"] for f in g["findings"]]

    long = llama_cpp(65536)
    assert long[0]["severity"] == "note" and "angles" in long[0]["quantities"]
    assert long[0]["first_offset"] == first_parting("10000", 128, 65536, 2**-8).first
    assert llama_cpp(4096) == []
