"""Catalog entries for document 001 (`001_8f1b66f67cfe018c.txt`): a survey of positional encodings with
PyTorch code, a comparison table, "say it like this" lines and a common mistake.

Evidence of kind CITATION records what a named primary source says; its `holds` is written down once and means
"the source says what the summary says", which points the way of the evidence's bearing (SUPPORTS: the source
agrees with the claim; REFUTES: the source contradicts it; LIMITS: the source shows where the claim stops).
Every other piece of evidence is computed by the suite's derivations (`proofs`) and checks (`properties`),
run on the document's own modules where it has code (`properties.battery.torch_code`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pe_verify.properties.battery import Report
from pe_verify.properties.battery.torch_code import (
    RotaryCache,
    SinusoidalTable,
    broadcast_outcome,
    dropout_can_leave_unchanged,
    shape_error,
    training_dropout_outcomes,
)
from pe_verify.properties.battery.torch_code_checks import (
    float32_angle_bound,
    rotary_cache_battery,
    rotary_cache_checks,
    sinusoidal_table_battery,
    table_deviation,
    usage_example_errors,
)
from pe_verify.properties.checks.learned_coverage import (
    covers_positions_below,
    lookup_error,
    random_position_table,
)
from pe_verify.properties.checks.unseen_angles import unrotated_pairs
from pe_verify.properties.encodings.learned import LearnedPositionTable
from pe_verify.properties.numerics.checking import angle_tolerance

from . import catalog
from .evidence import from_battery, from_check, from_derivation
from .model import (
    AGGREGATE,
    BACKGROUND,
    CAVEAT,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    DIGITS,
    EXACT,
    FLAWED,
    FLOAT,
    LIMITS,
    NOT_CHECKABLE,
    NUMERIC,
    PROVED,
    QUESTION,
    REFUTED,
    REFUTES,
    STEP_CHECKED,
    STEP_FAILS,
    SUPPORTS,
    SYMBOLIC,
    Assessment,
    Evidence,
    Source,
    cited,
    claim,
)
from .numbers import certified, libm_scalar, within

DOC = "001_8f1b66f67cfe018c.txt"
INTRODUCTION = "(introduction)"
CODE = "💻 코드 예제"
TABLE = "📊 포지셔널 인코딩 방식 비교"
SAY_IT = "🗣\ufe0f 실무에서 이렇게 말하세요"
MISTAKES = "⚠\ufe0f 흔한 실수 & 주의사항"

#: The usage example of the document's RoPE module: q and k of shape [batch, seq_len, heads, head_dim].
EXAMPLE_Q_SHAPE = (2, 128, 8, 64)
#: The document's sinusoidal module: d_model and its default max_len.
D_MODEL, MAX_LEN = 512, 5000


# ------------------------------------------------------------------------------------------ primary sources


def cite(summary: str, bearing: str = SUPPORTS) -> Evidence:
    """A primary source, read and summarised; `holds` records that it says what the summary says."""
    return Evidence(CITATION, summary, True, bearing)


TRANSFORMER_PAPER = (
    "Vaswani et al. 2017, arXiv 1706.03762 §3.5 'Positional Encoding': sine and cosine functions of "
    "different frequencies, PE(pos, 2i) = sin(pos/10000^(2i/d_model)); learned positional embeddings "
    "'produced nearly identical results' (Table 3, row E); the sinusoidal version was chosen because it "
    "'may allow the model to extrapolate to sequence lengths longer than the ones encountered during "
    "training'"
)
LLAMA_PAPER = (
    "Touvron et al. 2023 (LLaMA), arXiv 2302.13971 §2.2, 'Rotary Embeddings [GPTNeo]': 'We remove the "
    "absolute positional embeddings, and instead, add rotary positional embeddings (RoPE) ... at each "
    "layer of the network'; Meta's reference code (meta-llama/llama, llama/model.py) rotates q and k of "
    "shape (bsz, seqlen, n_heads, head_dim) with the frequencies viewed as (1, seqlen, 1, head_dim/2)"
)
MISTRAL_CODE = (
    "Mistral's reference code (mistralai/mistral-inference, src/mistral_inference/rope.py): "
    "precompute_freqs_cis(dim, end, theta) and apply_rotary_emb rotate q and k by position (RoPE)"
)
QWEN_CODE = (
    "Qwen's published modeling code (modeling_qwen.py of Qwen-1.8B, Alibaba Cloud; copy in alibaba/MNN "
    "transformers/llm/export/llm_models/Qwen-1_8B/): class RotaryEmbedding with inv_freq = 1/(base ** "
    "(arange(0, dim, 2)/dim))"
)
BLOOM_CODE = (
    "The BLOOM implementation in huggingface/transformers "
    "(src/transformers/models/bloom/modeling_bloom.py): build_alibi_tensor builds BLOOM's attention bias "
    "after ALiBi (arXiv 2108.12409); BLOOM has no position embedding table"
)
MPT_CARD = (
    "MosaicML's MPT-7B model card (huggingface.co/mosaicml/mpt-7b): MPT replaces 'positional embeddings "
    "with Attention with Linear Biases (ALiBi)'; its published config sets attn_config.alibi = true; the "
    "card reports fine-tuning on up to 65k-token inputs and handling up to 84k tokens"
)
BERT_CODE = (
    "Google's BERT code (google-research/bert, modeling.py, embedding_postprocessor): the position table "
    "is a learned variable of shape [max_position_embeddings, width], guarded by "
    "tf.assert_less_equal(seq_length, max_position_embeddings); bert-base-uncased config.json: "
    "max_position_embeddings = 512, position_embedding_type = 'absolute'"
)
GPT2_CODE = (
    "OpenAI's GPT-2 code (openai/gpt-2, src/model.py): wpe = tf.get_variable('wpe', [n_ctx, n_embd]), a "
    "trained table with default n_ctx = 1024, read with tf.gather(wpe, positions). (GPT-1 and GPT-3 were "
    "not checked.)"
)
ALIBI_PAPER = (
    "Press, Smith & Lewis, arXiv 2108.12409 (ICLR 2022), abstract and Figure 1: a 1.3B model trained on "
    "length 1024 'extrapolates to input sequences of length 2048', matching a sinusoidal model trained on "
    "2048; Figure 1 (WikiText-103, L = 512 and 1024): as validation inputs get longer, 'current position "
    "methods (sinusoidal, rotary, and T5) show degraded perplexity ... but our method does not'"
)
PI_PAPER = (
    "Chen et al., arXiv 2306.15595 (position interpolation), abstract: RoPE models such as LLaMA are "
    "extended by down-scaling positions 'rather than extrapolating beyond the trained context length which "
    "may lead to catastrophically high attention scores that completely ruin the self-attention mechanism'"
)
YARN_PAPER = (
    "Peng et al., arXiv 2309.00071 (YaRN), abstract: RoPE models 'fail to generalize past the sequence "
    "length they were trained on'; the published YaRN checkpoints are Llama 2 7B/13B fine-tuned with YaRN "
    "at 64k and 128k context windows"
)
LLAMA2_LONG_PAPER = (
    "Xiong et al., arXiv 2309.16039 ('LLaMA 2 Long'), abstract: models 'built through continual "
    "pretraining from Llama 2' with 'effective context windows of up to 32,768 tokens'; the abstract "
    "analyses Llama's position encoding and does not mention YaRN. That the paper raises RoPE's base "
    "frequency (10,000 to 500,000, 'RoPE ABF') is stated by secondary summaries; the section itself was "
    "not verified here"
)
TORCH_INDEX_ERROR = (
    "PyTorch's nn.Embedding raises 'IndexError: index out of range in self' for an index past its table, "
    "reported for absolute position tables (allenai/longformer issue #187; pzelasko/daseg issue #11, "
    "traced there to Longformer's 4098-row position table)"
)
MISTRAL_README = (
    "mistralai/mistral-src README (sliding-window attention): 'when the sequence length becomes too large, "
    "the model does not use the full context anymore'"
)

STREAMING_LLM = (
    "Xiao et al., arXiv 2309.17453 (StreamingLLM), abstract: a model 'trained with a finite length attention "
    "window' generalises 'to infinite sequence length without any fine-tuning' by keeping the key/value "
    "states of a few initial tokens (attention sinks) beside a window of recent ones; the authors' README "
    "(mit-han-lab/streaming-llm, FAQ 2, 'Is the context window of LLMs expanded?'): 'No. The context window "
    "remains unchanged. Only the most recent tokens and attention sinks are retained, discarding middle "
    "tokens' — for Llama-2 pre-trained with 4096 tokens the cache stays at most 4096"
)
YARN_MODELS = (
    "jquesnelle/yarn README (the YaRN authors' code): 7B and 13B Llama 2 models fine-tuned with YaRN at 64K "
    "and 128K context windows (NousResearch/Yarn-Llama-2-7b-128k, -13b-128k)"
)
VIT_PAPER = (
    "Dosovitskiy et al., arXiv 2010.11929 (ViT, ICLR 2021) §3.1: 'We use standard learnable 1D position "
    "embeddings, since we have not observed significant performance gains from using more advanced "
    "2D-aware position embeddings (Appendix D.4)'; Table 8 (ViT-B/16, ImageNet 5-shot linear): no "
    "position embedding 0.61382, 1-D 0.64206, 2-D 0.64001, relative 0.64032"
)
VIT_RESOLUTION = (
    "Dosovitskiy et al. 2020 §3.2: fine-tuning at a higher resolution needs '2D interpolation of the "
    "pre-trained position embeddings, according to their location in the original image' — with patch "
    "extraction, the only point where the 2D structure is put in by hand"
)
GPT4_TURBO = (
    "OpenAI's DevDay announcement 'New models and developer products announced at DevDay' (6 November "
    "2023): GPT-4 Turbo with a context window of 128K tokens"
)
CLAUDE3 = (
    "Anthropic's announcement 'Introducing the next generation of Claude' (4 March 2024): the Claude 3 "
    "models offer a 200K-token context window at launch"
)
GPT4_REPORT = (
    "OpenAI, GPT-4 Technical Report, arXiv 2303.08774 §2: 'this report contains no further details about "
    "the architecture (including model size), hardware, training compute, dataset construction, training "
    "method, or similar'; Anthropic's Claude 3 model card likewise does not describe the architecture or "
    "its position encoding"
)
TORCH_MODULE = (
    "PyTorch (torch/nn/modules/module.py, Module.__init__) sets training = True: a module is in training "
    "mode until .eval() is called; nn.Dropout's documentation: 'During training, randomly zeroes some of "
    "the elements of the input tensor with probability p ... the outputs are scaled by a factor of "
    "1/(1−p)'; in evaluation mode it is the identity"
)


# ------------------------------------------------------------------------------ helpers


def unseen_angle_step(unseen: list[int], setting: str, pairs: int, consequence: str) -> Evidence:
    """The argument step 'relative (or linear) structure ⇒ generalisation' fails when some frequency pairs
    never complete a turn over the trained range: `unseen` are those pairs (from `unrotated_pairs`)."""
    which = f" (i = {unseen[0]}…{unseen[-1]})" if unseen else ""
    return Evidence(
        DIGITS,
        f"{setting}: {len(unseen)} of {pairs} frequency pairs{which} turn by less than "
        f"2π over that range, so {consequence} (mpmath, 30 digits)",
        bool(unseen),
        STEP_FAILS,
    )


# --------------------------------------------------------------------------------------------- D1.1, D1.2


@claim(
    id="D1.1",
    source=Source(DOC, INTRODUCTION),
    statement="Without position information a Transformer cannot tell 'I ate an apple' from 'an apple I "
    "ate', because self-attention processes all tokens at once.",
    formal=r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X),\qquad \mathbf{1}^\top\mathrm{Attn}(PX) = "
    r"\mathbf{1}^\top\mathrm{Attn}(X)\quad\text{(no mask, no positional term)}",
    expected=CAVEAT,
    why_ko="마스크 없는 self-attention은 순열 등변이라 두 문장을 구별하지 못하지만, causal mask를 쓰는 "
    "decoder-only 모델은 위치 인코딩 없이도 순서에 따라 출력이 달라지므로 양방향 모델에서만 성립한다.",
    expected_argument=CONDITIONS,
    depends_on=("D0.1",),
)
def d1_1() -> Assessment:
    equivariant = from_derivation("attention.permutation_equivariance")
    causal = from_derivation("attention.causal_mask_breaks_equivariance", LIMITS)
    pooled = from_derivation("attention.pooled_output_invariance")
    argument = (
        Evidence(
            SYMBOLIC,
            "without a mask, permuting the tokens only permutes the outputs: every token "
            "gets the same output vector in either word order",
            equivariant.holds,
            STEP_CHECKED,
        ),
        Evidence(
            SYMBOLIC,
            "'processes all tokens at once' is not the reason: a causally masked model also "
            "processes all tokens at once, yet its outputs depend on the order "
            "(attention.causal_mask_breaks_equivariance); the argument needs 'no causal mask'",
            causal.holds,
            CONDITION_MISSING,
        ),
    )
    return Assessment(
        (equivariant, pooled, causal),
        explanation="Unmasked self-attention is permutation-equivariant: reordering the words reorders the "
        "output vectors and changes nothing else, so each word, and any pooled summary, comes out the same "
        "for both sentences (SymPy, with an exact example showing Attn(PX) ≠ Attn(X): equivariant, not "
        "invariant). With a causal mask, as in decoder-only models, the outputs do depend on the order "
        "even without position encodings, so the claim holds for bidirectional (unmasked) attention only.",
        argument_evidence=argument,
    )


@claim(
    id="D1.2",
    source=Source(DOC, INTRODUCTION),
    statement="The sinusoidal encoding needs no training, is defined for sequences of any length, and "
    "expresses relative position as a linear transformation.",
    formal=r"PE(p)_{2i} = \sin(p\,\omega_i),\ PE(p)_{2i+1} = \cos(p\,\omega_i)\ \text{for every real } "
    r"p;\quad "
    r"PE(p+k) = M_k\,PE(p)",
    expected=PROVED,
    why_ko="각 항이 p·10000^(−2i/d)의 sin 또는 cos이라 학습할 매개변수가 없고 모든 위치에서 정의되며, "
    "k만큼의 이동은 p와 무관한 회전 행렬 M_k다.",
    depends_on=("D0.8", "D0.11"),
)
def d1_2() -> Assessment:
    defined = from_derivation("trigonometry.sinusoidal_parameter_free")
    linear = from_derivation("sinusoidal.offset_matrix")
    return Assessment(
        (defined, linear),
        explanation="Each entry is sin or cos of p·10000^(−2i/d): a fixed function of the position with no "
        "parameter, defined at every real position, so nothing limits the length. A shift by k is the "
        "fixed block-rotation matrix M_k, independent of p (angle addition, checked by SymPy). Both "
        "statements are about the formula; whether a model trained on short inputs then works on long ones "
        "is another question (D1.6a, D1.7c).",
    )


# ----------------------------------------------------------------------------------------------- D1.3


@claim(
    id="D1.3",
    source=Source(DOC, INTRODUCTION),
    statement="RoPE encodes relative position (the query-key score depends on the offset); ALiBi adds a "
    "position bias directly to the attention scores.",
    formal=r"\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle;\quad "
    r"s_{ij} = q_i\cdot k_j - m\,(i-j)",
    expected=PROVED,
    why_ko="두 RoPE 배치 모두 점수가 offset에만 달려 있고, ALiBi 편향 −m(i − j)는 query와 key를 함께 "
    "옮겨도 변하지 않는다('효과적으로'라는 평가는 확인하지 않았다).",
    depends_on=("D0.17",),
)
def d1_3() -> Assessment:
    return Assessment(
        (
            from_derivation("rope.relative_half_split"),
            from_derivation("rope.relative_interleaved"),
            from_derivation("alibi.offset_only"),
        ),
        explanation="For both RoPE layouts SymPy reduces ⟨R_m q, R_n k⟩ − ⟨q, R_(n−m) k⟩ to 0, and the "
        "ALiBi bias −m(i − j) is unchanged by shifting query and key together. 'Effectively' "
        "(효과적으로) is a judgement of quality and is not checked.",
    )


d1_3a = cited(
    id="D1.3a",
    source=Source(DOC, INTRODUCTION),
    statement="RoPE is used in LLaMA and Mistral.",
    formal=r"\text{attribution (not mathematics)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="LLaMA 논문과 Mistral의 참조 코드가 rotary embedding을 쓴다.",
    sources=(cite(LLAMA_PAPER), cite(MISTRAL_CODE)),
    explanation="Both attributions agree with the primary sources: the LLaMA paper replaces absolute "
    "position embeddings by RoPE at every layer, and Mistral's reference code applies rotary "
    "embeddings.",
)


d1_3b = cited(
    id="D1.3b",
    source=Source(DOC, INTRODUCTION),
    statement="ALiBi extrapolates well to sequences longer than those seen in training.",
    formal=r"\text{empirical (not mathematics)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="ALiBi 논문이 평가한 길이 안에서는 학습 길이보다 긴 입력에서도 perplexity가 나빠지지 않는다고 "
    "보고한다.",
    sources=(cite(ALIBI_PAPER),),
    explanation="Empirical; the ALiBi paper supports it over the lengths it evaluates (trained on 512 "
    "or 1024 tokens, perplexity does not degrade on longer inputs, unlike sinusoidal, rotary and T5).",
)


d1_3c = cited(
    id="D1.3c",
    source=Source(DOC, INTRODUCTION),
    statement="BERT and GPT use learned position embeddings.",
    formal=r"\text{attribution (not mathematics)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="BERT의 위치 표는 학습되는 512행 변수이고 GPT-2의 wpe도 학습되는 1024행 표다(GPT 계열에서는 "
    "GPT-2만 확인했다).",
    sources=(cite(BERT_CODE), cite(GPT2_CODE)),
    explanation="Agrees with the released code: BERT's position table is a learned 512-row variable "
    "and GPT-2's wpe a trained 1024-row table. Only GPT-2 was checked among the GPT models.",
)


d1_3d = cited(
    id="D1.3d",
    source=Source(DOC, INTRODUCTION),
    statement="YaRN is a technique that extends the context length to 100K tokens and more.",
    formal=r"\text{factual: published context windows}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="YaRN 저자들이 128K 토큰 컨텍스트로 fine-tune한 Llama 2 모델을 공개했다.",
    sources=(cite(YARN_PAPER), cite(YARN_MODELS)),
    explanation="Agrees with the sources: YaRN's authors publish Llama 2 7B and 13B fine-tuned to "
    "128K-token context windows; the method itself is a RoPE frequency rule (G.yarn_ramp) plus "
    "fine-tuning.",
)


d1_3e = cited(
    id="D1.3e",
    source=Source(DOC, INTRODUCTION),
    statement="StreamingLLM is a technique that extends the context length to 100K tokens and more.",
    formal=r"\text{factual: what StreamingLLM keeps in its cache}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="StreamingLLM은 처음 몇 토큰(attention sink)과 최근 창만 남겨 긴 스트림을 처리할 뿐 컨텍스트 "
    "창은 사전학습 때 그대로라고 저자들이 밝힌다.",
    sources=(cite(STREAMING_LLM, REFUTES),),
    explanation="Contradicted by its authors: StreamingLLM lets a model run on streams of any length "
    "(4 million tokens in the paper) by keeping a few initial 'attention sink' tokens and a window of "
    "recent ones, but the context window stays the pre-training one (4096 tokens for Llama-2): the "
    "middle of the stream is discarded, and the README says in so many words that the window is not "
    "expanded.",
)


d1_3f = cited(
    id="D1.3f",
    source=Source(DOC, INTRODUCTION),
    statement="A Vision Transformer needs a separate positional-encoding design to encode 2D coordinates.",
    formal=r"\text{factual: what the ViT paper reports of 1-D and 2-D position embeddings}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="ViT 논문에서 래스터 순서의 평범한 1-D 학습 임베딩이 2-D를 고려한 임베딩만큼 좋았으므로, 고정 "
    "해상도에서는 별도 설계가 필요 없다.",
    sources=(cite(VIT_PAPER, REFUTES), cite(VIT_RESOLUTION, LIMITS)),
    explanation="Contradicted by the ViT paper: a plain learned 1-D embedding of the patches in raster "
    "order does as well as 2-D-aware and relative embeddings (Table 8: 0.64206 against 0.64001 and "
    "0.64032, all far above 0.61382 without one), so no separate design is needed at a fixed "
    "resolution. The 2-D structure does enter when the resolution changes: the learned table is "
    "interpolated in 2-D.",
)


d1_3g = cited(
    id="D1.3g",
    source=Source(DOC, INTRODUCTION),
    statement="GPT-4 Turbo and Claude 3 support contexts of 128K tokens and more.",
    formal=r"\text{factual: published context windows}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="공급사 발표에 따르면 GPT-4 Turbo는 128K, Claude 3는 200K 토큰을 지원한다.",
    sources=(cite(GPT4_TURBO), cite(CLAUDE3)),
    explanation="Agrees with the vendors' announcements: 128K tokens for GPT-4 Turbo, 200K for Claude 3.",
)


d1_3h = cited(
    id="D1.3h",
    source=Source(DOC, INTRODUCTION),
    statement="Those 128K+ contexts are owed to advances in efficient positional encoding.",
    formal=r"\text{factual: an attribution about undisclosed architectures}",
    expected=NOT_CHECKABLE,
    why_ko="두 공급사 모두 위치 인코딩이나 컨텍스트 확장 방법을 공개하지 않아, 어떤 출처로도 가릴 수 없다.",
    depends_on=("D1.3g",),
    sources=(cite(GPT4_REPORT, BACKGROUND),),
    explanation="Not checkable: neither vendor has published how its models encode positions or how "
    "their context was extended, so no source can confirm or refute that positional encoding is what "
    "made 128K+ possible (memory-efficient attention, training data and fine-tuning are as plausible).",
)


d1_3i = cited(
    id="D1.3i",
    source=Source(DOC, INTRODUCTION),
    statement="RAG systems that must process long documents prefer RoPE or ALiBi.",
    formal=r"\text{factual: a preference of system builders}",
    expected=NOT_CHECKABLE,
    why_ko="RAG가 주로 쓰는 공개 모델(LLaMA, Mistral, Qwen)이 모두 RoPE를 써서 '선호'를 따로 볼 수 없고, "
    "이 선택을 비교한 출처도 찾지 못했다.",
    sources=(cite(LLAMA_PAPER, BACKGROUND), cite(MISTRAL_CODE, BACKGROUND), cite(QWEN_CODE, BACKGROUND)),
    explanation="Not checkable: the open models a RAG system is usually built on (LLaMA, Mistral, Qwen) "
    "all use RoPE, so such systems use RoPE whatever their builders prefer; no source found surveys or "
    "compares the choice for retrieval.",
)


# ------------------------------------------------------------------------------------------- D1.4 (code)


def _identified_as(report: Report) -> str:
    """The layout and base a battery identified, in words ("the half-split layout with base 10000")."""
    parameters = report.identified.parameters
    return f"the {parameters['layout'].replace('_', '-')} layout with base {parameters['base']:g}"


@claim(
    id="D1.4",
    source=Source(DOC, CODE),
    statement="The SinusoidalPositionalEncoding module builds PE(pos, 2i) = sin(pos/10000^(2i/d_model)), "
    "PE(pos, 2i+1) = cos(same) as a [1, max_len, d_model] buffer and adds pe[:, :seq_len] to x.",
    formal=r"\texttt{pe}[0, p, 2i] = \sin(p\,e^{-2i\ln(10000)/d}),\ \texttt{pe}[0, p, 2i+1] = "
    r"\cos(p\,e^{-2i\ln(10000)/d}),\quad e^{-2i\ln(10000)/d} = 10000^{-2i/d}",
    expected=CAVEAT,
    why_ko="짝수 d_model에서는 공식대로 만들어지지만, 홀수 d_model이면 div_term과 홀수 열의 개수가 맞지 "
    "않아 모듈을 만들 수조차 없는데 글은 이 조건을 밝히지 않는다.",
    depends_on=("D0.3",),
)
def d1_4() -> Assessment:
    wide_error = table_deviation(SinusoidalTable, D_MODEL, MAX_LEN, np.float64)
    narrow_error, max_angle = table_deviation(SinusoidalTable, D_MODEL, MAX_LEN), float(MAX_LEN - 1)
    battery = sinusoidal_table_battery(SinusoidalTable, D_MODEL, MAX_LEN)
    # angle_tolerance bounds the float64 module against the float64 reference, and the reference alone
    # against the formula: its error cannot move the certified digits of the float32 module's error.
    float64_bound, narrow_bound = angle_tolerance(max_angle, 1), float32_angle_bound(max_angle)
    odd = {d: shape_error(lambda d=d: SinusoidalTable(d, 8)) for d in (5, D_MODEL - 1)}
    odd_fails = all(message is not None and "must match" in message for message in odd.values())
    narrow_text = certified(narrow_error, float64_bound, ".2e")
    reference_note = (
        "measured against the float64 reference, whose own error "
        f"(≤ {libm_scalar(float64_bound, '.2e')}) leaves these digits fixed"
    )
    evidence = (
        from_derivation("trigonometry.exp_log_frequency"),
        Evidence(
            FLOAT,
            f"the module run in float64 (d = {D_MODEL}, positions 0..{MAX_LEN - 1}) matches the "
            f"float64 reference within float64 rounding ({within(wide_error, float64_bound, '.2e')}, "
            "the a-priori bound)",
            wide_error <= float64_bound,
            detail=(("largest error", within(wide_error, float64_bound, ".3e")),),
            measured=(("largest error", wide_error), ("tolerance", float64_bound)),
        ),
        Evidence(
            FLOAT,
            f"the module as written (float32, correctly rounded exp, sin and cos; d = {D_MODEL}, "
            f"positions 0..{MAX_LEN - 1}) matches the formula to {narrow_text} ≤ 2ε32((2 + ln "
            f"10000)·{MAX_LEN - 1} + 1) = {libm_scalar(narrow_bound, '.2e')}; {reference_note}",
            narrow_error <= narrow_bound,
            detail=(
                ("largest error", certified(narrow_error, float64_bound, ".3e")),
                ("tolerance", libm_scalar(narrow_bound, ".3e")),
            ),
            measured=(("largest error", narrow_error), ("tolerance", narrow_bound)),
        ),
        from_battery(
            battery,
            f"`pe-verify check` on the module as written (d = {D_MODEL}, positions < {MAX_LEN}): every "
            f"property of a sinusoidal encoding holds, and it is identified as {_identified_as(battery)}",
            "interleaved",
        ),
        Evidence(
            EXACT,
            "odd d_model (5 and 511): the assignment pe[:, 1::2] = cos(position·div_term) gets "
            "⌈d/2⌉ columns for a ⌊d/2⌋-column slice and fails, as in torch",
            odd_fails,
            LIMITS,
            detail=tuple((f"d_model = {d}", str(message)) for d, message in odd.items()),
        ),
    )
    return Assessment(
        evidence,
        explanation="The code's exp(arange(0, d, 2)·(−ln 10000/d)) is 10000^(−2i/d) exactly (SymPy), sin "
        "fills the even columns and cos the odd ones: run in float64 the module matches the formula within "
        f"float64 rounding ({within(wide_error, float64_bound)}, the a-priori bound); as written (float32) "
        f"the largest error over 5000 × 512 entries is {certified(narrow_error, float64_bound, '.1e')}, "
        "float32 rounding of angles up to 4999 rad. That figure is for correctly rounded float32 exp, sin "
        "and cos; a platform's libm may differ from them by a few ulp. For odd d_model the module cannot "
        f"be built at all: {odd[5]}. The document does not say that d_model must be even.",
    )


@claim(
    id="D1.4a",
    source=Source(DOC, CODE),
    statement="In the usage example the sinusoidal module maps x of shape [2, 128, 512] to an output of "
    "shape [2, 128, 512].",
    formal=r"[2, 128, 512] + [1, 128, 512] \to [2, 128, 512]",
    expected=PROVED,
    why_ko="pe[:, :128]이 배치 축으로 broadcast되어 출력은 [2, 128, 512]이고, max_len = 5000보다 긴 입력은 "
    "shape 오류로 멈춘다.",
    depends_on=("D0.2",),
)
def d1_4a() -> Assessment:
    x = np.zeros((2, 128, D_MODEL), dtype=np.float32)
    out = SinusoidalTable(D_MODEL, MAX_LEN).forward(x)
    longer = np.zeros((1, MAX_LEN + 1, D_MODEL), dtype=np.float32)
    too_long = shape_error(lambda: SinusoidalTable(D_MODEL, MAX_LEN).forward(longer))
    return Assessment(
        (
            Evidence(
                EXACT,
                f"running the module on x of shape {list(x.shape)} gives shape {list(out.shape)} "
                f"({out.dtype})",
                out.shape == x.shape,
                detail=(("output shape", str(list(out.shape))),),
            ),
        ),
        explanation=f"The printed shape is what the code gives: {list(out.shape)}, float32 (pe[:, :128] has "
        "shape [1, 128, 512] and broadcasts over the batch). Inputs longer than max_len = 5000 fail: "
        f"{too_long}.",
    )


@claim(
    id="D1.4b",
    source=Source(DOC, CODE),
    statement="(The catalog's question to the usage example.) x_with_pos, the module's output, is x plus the "
    "encoding.",
    formal=r"\texttt{sinusoidal\_pe}(x) = x + PE\ ?\quad\text{vs.}\quad \mathrm{dropout}_{0.1}(x + PE)",
    expected=REFUTED,
    why_ko="모듈이 nn.Dropout(p=0.1)을 품은 채 training 모드로 시작하고 예제가 .eval()을 부르지 않으므로, "
    "출력의 각 항은 0이 되거나 10/9배가 된다.",
    role=QUESTION,
    depends_on=("D1.4a",),
)
def d1_4b() -> Assessment:
    p = Fraction(1, 10)
    entries = 2 * 128 * D_MODEL
    entry = Fraction(1)
    outcomes = training_dropout_outcomes(entry, p)
    return Assessment(
        (
            cite(TORCH_MODULE, BACKGROUND),
            Evidence(
                EXACT,
                f"with p = {p}, training-mode dropout turns an entry v of x + PE into 0 or v/(1 − p) = "
                f"10v/9: an entry {entry} comes out as {outcomes[0]} or {outcomes[1]}, never {entry}",
                not dropout_can_leave_unchanged(entry, p),
                REFUTES,
                detail=(("entries of the example's output", str(entries)),),
            ),
        ),
        explanation="No: the module is built with nn.Dropout(p=0.1) and, like every PyTorch module, starts "
        f"in training mode, and the example never calls .eval(). So each of the {entries} entries of x + PE "
        "is either zeroed or multiplied by 10/9, and none equals its entry of x + PE unless that entry is 0 "
        "(x is Gaussian, so almost surely none is). The printed shape is unaffected (D1.4a); model.eval() "
        "would make the output x + PE.",
    )


@claim(
    id="D1.4c",
    source=Source(DOC, CODE),
    statement="The code comment '# 10000^(2i/d_model) 계산' describes div_term = exp(arange(0, d_model, 2) · "
    "(−ln 10000 / d_model)).",
    formal=r"e^{2i\,(-\ln 10000/d)} = 10000^{2i/d}\ ?",
    expected=REFUTED,
    why_ko="div_term은 10000^(2i/d_model)이 아니라 그 역수 10000^(−2i/d_model)이다: 코드는 맞고 주석만 "
    "틀렸다.",
    depends_on=("D1.4",),
)
def d1_4c() -> Assessment:
    return Assessment(
        (
            from_derivation("trigonometry.exp_log_frequency"),
            from_derivation("trigonometry.div_term_is_the_reciprocal", REFUTES),
        ),
        explanation="The comment names the reciprocal: div_term is 10000^(−2i/d_model) = "
        "1/10000^(2i/d_model) (proved), which differs from 10000^(2i/d_model) for every i > 0. The code is "
        "right — it multiplies the positions by div_term, which is dividing them by 10000^(2i/d_model) as "
        "the formula says — only the comment is wrong.",
    )


# ------------------------------------------------------------------------------------------- D1.5 (code)


@claim(
    id="D1.5",
    source=Source(DOC, CODE),
    statement="The RotaryPositionalEncoding module rotates q and k by position (inv_freq = "
    "1/10000^(2i/dim), caches of cat(freqs, freqs), q·cos + rotate_half(q)·sin), so that their dot product "
    "depends on the offset only.",
    formal=r"\texttt{rope}(x, p) = x\cos(p\theta) + \mathrm{rotate\_half}(x)\sin(p\theta),\ "
    r"\langle\texttt{rope}(q, m), \texttt{rope}(k, n)\rangle = \langle q, \texttt{rope}(k, n-m)\rangle",
    expected=NUMERIC,
    why_ko="모듈은 half-split(rotate_half) 배치의 RoPE이며, 측정한 범위에서 float64로 돌리면 50자리 "
    "기준값과 반올림 오차 안에서 맞고 점수가 offset에만 달려 있다.",
    depends_on=("D0.17", "D1.3"),
)
def d1_5() -> Assessment:
    half_split, interleaved, relative, as_written, reference_error = rotary_cache_checks(RotaryCache, 64)
    battery = rotary_cache_battery(RotaryCache, 64)
    # The interleaved mismatch is far from float noise: the float64 run's a-priori bound fixes its digits.
    mismatch = certified(interleaved.max_error, interleaved.tolerance, ".2f")
    evidence = (
        from_derivation("rope.relative_half_split"),
        from_check(
            half_split,
            FLOAT,
            "the module run in float64 equals the 50-digit half-split RoPE "
            "(dim 64, base 10000, 12 seeded random vectors, positions < 2048)",
        ),
        Evidence(
            FLOAT,
            "the same run does not equal the interleaved (RoFormer/Meta) layout: the pairs are "
            f"(x_i, x_(i+32)), not (x_2i, x_2i+1) (largest difference {mismatch})",
            not interleaved.holds,
            measured=(("largest difference", interleaved.max_error), ("tolerance", interleaved.tolerance)),
        ),
        from_check(
            relative,
            FLOAT,
            "the module run in float64 has the relative property "
            "⟨rope(q, m), rope(k, n)⟩ = ⟨q, rope(k, n − m)⟩ (12 seeded pairs, 0 ≤ m ≤ n < 2048)",
        ),
        from_battery(
            battery,
            "`pe-verify check` on the module as written (float32 vectors of dim 64 through its forward "
            "pass, positions < 2048): every property of a rotary embedding holds, and it is identified as "
            f"{_identified_as(battery)}",
            "half_split",
        ),
    )
    return Assessment(
        evidence,
        explanation="Through its own forward pass the module is half-split RoPE (GPT-NeoX / Hugging Face "
        "rotate_half layout): run in float64 it matches the 50-digit reference and keeps the relative "
        f"property within float64 rounding ({within(half_split.max_error, half_split.tolerance)} and "
        f"{within(relative.max_error, relative.tolerance)}, their a-priori bounds); as written, with its "
        "cos/sin caches in float32, it is off the reference by up to "
        f"{certified(as_written.max_error, reference_error, '.1e')} at positions below 2048. That figure "
        "is for correctly rounded float32 pow, cos and sin; a platform's libm may differ from them by a few "
        "ulp. Meta's LLaMA code pairs coordinates (2i, 2i+1) instead; the two layouts are the same map up "
        "to a fixed permutation of coordinates (rope.half_split_permutation). The usage example is a "
        "separate matter (D1.5a).",
    )


@claim(
    id="D1.5a",
    source=Source(DOC, CODE),
    statement="The RoPE usage example runs: with q and k of shape [2, 128, 8, 64] the module returns "
    "tensors of that shape and prints them.",
    formal=r"[2, 128, 8, 64] \odot [1, 128, 64] \to [2, 128, 8, 64]\ ?",
    expected=REFUTED,
    why_ko="cos, sin 캐시 [1, 128, 64]가 heads 축이 있는 q [2, 128, 8, 64]와 broadcast되지 않아 예제가 "
    "shape 오류로 멈추므로, 글에 인쇄된 출력은 이 코드에서 나올 수 없다.",
)
def d1_5a() -> Assessment:
    module_error, numpy_error = usage_example_errors(RotaryCache, 64, EXAMPLE_Q_SHAPE)
    batch, seq, heads, dim = EXAMPLE_Q_SHAPE
    layouts = {
        "cos unsqueezed at axis 2, [1, 128, 1, 64]": broadcast_outcome(
            (batch, seq, heads, dim), (1, seq, 1, dim)
        ),
        "q as [2, 8, 128, 64], seq_len still read from axis 1": broadcast_outcome(
            (batch, heads, seq, dim), (1, heads, dim)
        ),
        "q as [2, 8, 128, 64], seq_len read from axis -2": broadcast_outcome(
            (batch, heads, seq, dim), (1, seq, dim)
        ),
        "one head, q as [2, 128, 1, 64]": broadcast_outcome((batch, seq, 1, dim), (1, seq, dim)),
    }
    fails = Evidence(
        EXACT,
        "running the example: q·cos with q of shape [2, 128, 8, 64] and cos = "
        "cos_cached[:128].unsqueeze(0) of shape [1, 128, 64] does not broadcast (axes are "
        "aligned from the right: 8 against 128)",
        module_error is not None and numpy_error is not None,
        REFUTES,
        detail=(("module", str(module_error)), ("numpy", str(numpy_error)), *layouts.items()),
    )
    return Assessment(
        (fails,),
        explanation=f"The example stops with a shape error — {module_error} — so the line 'RoPE 적용 후 Q: "
        "torch.Size([2, 128, 8, 64]) ...' cannot have come from this code. Fixes, by the same broadcasting "
        "rule: unsqueeze cos and sin at the heads axis, [1, 128, 1, 64] → "
        f"{layouts['cos unsqueezed at axis 2, [1, 128, 1, 64]']} (the layout of Meta's LLaMA code); or pass "
        "q as [batch, heads, seq, dim] and read seq_len from axis −2 → "
        f"{layouts['q as [2, 8, 128, 64], seq_len read from axis -2']} (reading it from axis 1 as the "
        f"module does gives {layouts['q as [2, 8, 128, 64], seq_len still read from axis 1']}). With a "
        "single head the module runs without error but returns "
        f"{layouts['one head, q as [2, 128, 1, 64]']}: a silently wrong shape.",
    )


# ----------------------------------------------------------------------------------------- D1.6 (table)


d1_6a = cited(
    id="D1.6a",
    source=Source(DOC, TABLE),
    statement="Table row 'Sinusoidal (absolute)': maximum context = the training length, extrapolation "
    "moderate, used in the original Transformer.",
    formal=r"\text{attribution and empirical ratings}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="원 Transformer에 쓰였다는 귀속은 논문과 맞으며, '최대 컨텍스트 = 학습 길이'는 공식의 한계가 "
    "아니라 경험적 한계로만 읽을 수 있다('보통'이라는 평가는 출처가 쓰지 않는 말이라 판정에 들지 않는다).",
    depends_on=("D1.2",),
    sources=(cite(TRANSFORMER_PAPER), cite(ALIBI_PAPER)),
    explanation="Confirmed for the two cells the sources speak to; the third, the rating 'moderate', is "
    "one these sources do not use, so the verdict does not cover it. The attribution agrees with the "
    "Transformer paper. 'Maximum context = training length' can only mean an empirical limit: the formula "
    "itself is defined at every position (D1.2), and the ALiBi paper shows sinusoidal models degrading on "
    "inputs longer than their training length.",
)


d1_6b = cited(
    id="D1.6b",
    source=Source(DOC, TABLE),
    statement="Table row 'Learned embedding': maximum context = the training length, extrapolation low, "
    "used in BERT and GPT-2.",
    formal=r"\text{attribution and empirical ratings}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="BERT(512행)와 GPT-2(1024행)의 공개 코드와 맞고, 표에 없는 위치에는 행이 없으니 외삽은 '낮음'이 "
    "아니라 아예 없다.",
    depends_on=("D1.8",),
    sources=(cite(BERT_CODE), cite(GPT2_CODE)),
    explanation="The attributions agree with the released code (BERT: 512 learned rows; GPT-2: 1024). "
    "Here 'maximum context = training length' is a hard limit, not a rating: the table has no row past "
    "its length (D1.8), so 'low' extrapolation is in fact none without changing the model.",
)


d1_6c = cited(
    id="D1.6c",
    source=Source(DOC, TABLE),
    statement="Table row 'RoPE': maximum context 8K–128K+, extrapolation excellent, used in LLaMA, Mistral "
    "and Qwen.",
    formal=r"\text{attribution and empirical ratings}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="'외삽 우수'가 학습 길이를 넘으면 rotary 모델이 나빠진다는 측정과 어긋난다(사용 모델 귀속은 "
    "출처와 맞다).",
    depends_on=("D1.7d",),
    sources=(
        cite(LLAMA_PAPER),
        cite(MISTRAL_CODE),
        cite(QWEN_CODE),
        cite(ALIBI_PAPER, REFUTES),
        cite(PI_PAPER, REFUTES),
        cite(YARN_PAPER, REFUTES),
    ),
    explanation="Contradicted as stated, by its 'extrapolation: excellent': the ALiBi paper measures "
    "rotary models degrading past the training length, and the position-interpolation and YaRN papers "
    "start from RoPE models failing there. The three attributions agree with the primary sources. The "
    "long contexts of "
    "RoPE models come from training or fine-tuning at those lengths, or from rescaling RoPE "
    "(interpolation, NTK, YaRN).",
)


d1_6d = cited(
    id="D1.6d",
    source=Source(DOC, TABLE),
    statement="Table row 'ALiBi': maximum context unlimited, extrapolation very good, used in BLOOM and MPT.",
    formal=r"\text{attribution and empirical ratings}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="BLOOM과 MPT 귀속과 '매우 좋은' 외삽은 출처가 뒷받침하고, '무제한'은 편향이 모든 거리에서 "
    "정의된다는 뜻으로만 맞다.",
    depends_on=("D1.7e",),
    sources=(cite(BLOOM_CODE), cite(MPT_CARD), cite(ALIBI_PAPER)),
    explanation="The attributions agree with BLOOM's implementation and MPT's card and config, and the "
    "ALiBi paper supports 'very good' extrapolation over the lengths it tests. 'Unlimited' holds only "
    "in the sense that the bias −m(i − j) is defined at every distance (no table to run out of, "
    "D1.7e); every reported run is finite (MPT: up to 84k tokens).",
)


d1_6e = cited(
    id="D1.6e",
    source=Source(DOC, TABLE),
    statement="Table row 'YaRN (RoPE extension)': maximum context 128K+, extrapolation excellent, used in "
    "LLaMA 2 Long.",
    formal=r"\text{attribution and empirical ratings}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="YaRN으로 128K 창을 연 공개 모델은 YaRN으로 fine-tune한 Llama 2이지 'LLaMA 2 Long'이 아니며, "
    "LLaMA 2 Long의 논문은 YaRN을 언급하지 않는다: 귀속이 출처와 어긋난다.",
    sources=(cite(YARN_PAPER), cite(LLAMA2_LONG_PAPER, REFUTES)),
    explanation="Contradicted as stated, by its attribution: YaRN is a RoPE extension with published "
    "128k-window models (YaRN paper), but those are Llama 2 models fine-tuned with YaRN, not 'LLaMA 2 "
    "Long'. LLaMA 2 Long (Xiong et al.) is "
    "continual pretraining of Llama 2 to effective windows of up to 32,768 tokens; its abstract does "
    "not mention YaRN, and secondary summaries describe an enlarged RoPE base frequency instead. The "
    "attribution, and '128K+' for that model, contradict the primary source.",
)


@claim(
    id="D1.6",
    source=Source(DOC, TABLE),
    statement="The comparison table of methods: maximum context, extrapolation quality and the models that "
    "use each (rows D1.6a–D1.6e).",
    formal=r"\text{attributions and empirical ratings, row by row}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="행 D1.6c와 D1.6e가 출처와 어긋나므로 표 전체도 그대로는 맞지 않다(나머지 모델 귀속은 출처와 "
    "맞다).",
    role=AGGREGATE,
)
def d1_6() -> Assessment:
    rows = {row.id: catalog.assessment(row.id) for row in (d1_6a, d1_6b, d1_6c, d1_6d, d1_6e)}
    verdicts = {key: value.verdict for key, value in rows.items()}
    return Assessment(
        tuple(e for row in rows.values() for e in row.evidence),
        explanation="Row by row: " + "; ".join(f"{key} {value}" for key, value in verdicts.items()) + ". "
        "The table is contradicted as stated, as every claim with a contradicted part is: every model "
        "attribution but one agrees with a primary source; 'YaRN — LLaMA 2 Long' does not, and 'RoPE: "
        "excellent extrapolation' contradicts the measurements. The maximum-context column mixes a hard "
        "limit (learned tables) with empirical limits (everything else).",
    )


# ---------------------------------------------------------------------------------- D1.7 (say it like this)


d1_7a = cited(
    id="D1.7a",
    source=Source(DOC, SAY_IT),
    statement="(meeting) Retrieval quality on long documents in RAG may drop because of "
    "positional-encoding limits; replacing a 4K-context model with a RoPE-based 128K model lets the whole "
    "document be processed without chunking.",
    formal=r"\text{empirical (not mathematics)}",
    expected=NOT_CHECKABLE,
    why_ko="전체로는 확인할 수 없다: 확인할 수 있는 것은 128K 창의 RoPE 모델이 있다는 전제뿐이고(YaRN의 "
    "Llama 2) 그 전제는 맞다.",
    sources=(cite(YARN_PAPER, BACKGROUND),),
    explanation="Not checkable as a whole: only the premise that RoPE models with 128K windows exist can "
    "be checked, and it holds (YaRN's 128k Llama 2 checkpoints). That retrieval quality drops 'because of' "
    "the position "
    "encoding is hedged ('may') and not checkable; that a 128K window makes chunking unnecessary holds "
    "for documents that fit, but whether the model uses all of it is empirical (Mistral's README notes "
    "that at large lengths 'the model does not use the full context anymore').",
)


@claim(
    id="D1.7b",
    source=Source(DOC, SAY_IT),
    statement="(interview) Positional encoding is needed because self-attention is a permutation-invariant "
    "operation.",
    formal=r"\mathrm{Attn}(PX) = \mathrm{Attn}(X)\ ?\quad\text{vs.}\quad "
    r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X),\quad \mathbf{1}^\top\mathrm{Attn}(PX) = "
    r"\mathbf{1}^\top\mathrm{Attn}(X)",
    expected=CAVEAT,
    why_ko="위치 정보가 필요하다는 요지는 맞지만, self-attention은 순열 불변이 아니라 등변이어서 "
    "'불변'이라는 전제는 틀렸다(불변인 것은 pooling한 출력뿐이다).",
    expected_argument=FLAWED,
    depends_on=("D1.1",),
)
def d1_7b() -> Assessment:
    equivariant = from_derivation("attention.permutation_equivariance", LIMITS)
    return Assessment(
        (equivariant, from_derivation("attention.pooled_output_invariance")),
        explanation="The point holds; the word 'invariant' does not. Position information is needed: "
        "without a mask, attention cannot tell two orders of the same tokens apart (D1.1), because it is "
        "permutation-equivariant: permuting the tokens only permutes the outputs, so each token's output "
        "is the same in every order, and the token-sum (any pooled output) is invariant (SymPy, "
        "for any number of tokens and any permutation, written out for three tokens). Attn itself is not "
        "invariant: SymPy exhibits inputs with Attn(PX) ≠ Attn(X). The order-blindness the line means is "
        "true and its conclusion follows, so the word limits the claim rather than refuting it: a caveat, "
        "with the invariance true only of pooled outputs. As an argument it is flawed all the same, since "
        "its premise, as worded, is false.",
        argument_evidence=(
            Evidence(
                SYMBOLIC,
                "premise 'self-attention is permutation invariant' fails: Attn(PX) ≠ "
                "Attn(X) on an exact example",
                equivariant.holds,
                STEP_FAILS,
            ),
            Evidence(
                SYMBOLIC,
                "equivariance already hides the order: each token's output is the same in every order",
                equivariant.holds,
                STEP_CHECKED,
            ),
        ),
    )


@claim(
    id="D1.7c",
    source=Source(DOC, SAY_IT),
    statement="(interview) With sin/cos, relative position is a linear transformation without any "
    "training, so the model generalises well.",
    formal=r"PE(p+k) = M_k\,PE(p)\ \Rightarrow\ \text{good generalisation}\ ?",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="sin/cos에서 상대 위치가 학습 없는 선형 변환이라는 전제는 증명되지만, 일반화가 잘 된다는 결론은 "
    "따라 나오지 않고 출처도 반대를 가리킨다.",
    expected_argument=FLAWED,
    depends_on=("D0.8", "D1.2"),
)
def d1_7c() -> Assessment:
    premise = from_derivation("sinusoidal.offset_matrix", STEP_CHECKED)
    unseen = unrotated_pairs(D_MODEL, 512)
    gap = unseen_angle_step(
        unseen,
        f"d = {D_MODEL}, trained on positions < 512",
        D_MODEL // 2,
        "every later position shows them angles never seen",
    )
    return Assessment(
        (cite(ALIBI_PAPER, REFUTES),),
        explanation="Contradicted by the sources, and the argument does not hold: the premise is proved "
        "(SymPy: PE(p + k) = M_k PE(p)), but the conclusion does not follow from it: "
        f"the linear map exists for every k, but {len(unseen)} of the {D_MODEL // 2} frequency pairs never "
        "complete a turn within 512 positions, so longer inputs bring values the model never saw. "
        "Measured, sinusoidal models degrade past their training length (ALiBi paper), and the Transformer "
        "paper found learned embeddings 'nearly identical' within it: the sources point against "
        "'generalises well'.",
        argument_evidence=(premise, gap),
    )


@claim(
    id="D1.7d",
    source=Source(DOC, SAY_IT),
    statement="(technical discussion) RoPE extrapolates well because only the relative position enters the "
    "query-key dot product.",
    formal=r"\langle R_m q, R_n k\rangle = g(q, k, n-m)\ \Rightarrow\ \text{extrapolation}\ ?",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="점수가 offset에만 달려 있다는 전제는 증명되지만 그것으로 외삽이 되지는 않으며, 학습 길이를 "
    "넘으면 학습 때 보지 못한 회전각이 나오고 출처도 반대를 가리킨다.",
    expected_argument=FLAWED,
    depends_on=("D0.17", "D1.3", "G.rope_expected_score"),
)
def d1_7d() -> Assessment:
    premise = from_derivation("rope.relative_half_split", STEP_CHECKED)
    unseen = unrotated_pairs(128, 2048)
    gap = unseen_angle_step(
        unseen,
        "head dim 128, trained on offsets < 2048",
        64,
        "a larger offset gives them rotation angles never seen in training",
    )
    return Assessment(
        (
            cite(PI_PAPER, REFUTES),
            cite(YARN_PAPER, REFUTES),
            cite(ALIBI_PAPER, REFUTES),
            from_derivation("random_scores.score_peak_at_any_distance", BACKGROUND),
            from_derivation("random_scores.expected_score", BACKGROUND),
        ),
        explanation="Contradicted by the sources, and the argument does not hold: the premise is proved "
        "(the score depends on q, k and n − m only, SymPy), but it does not give extrapolation: a function "
        "of the offset learned on offsets below L says nothing about larger "
        f"ones, and with head dim 128 and L = 2048, {len(unseen)} of 64 frequency pairs see new angles past "
        "L. Nor does the relative form favour near offsets: for every offset r, trained or not, some q, k "
        "score highest at r (k = R_r q), and for Gaussian q, k the expected score is 0 at every offset, so "
        "no decay built into RoPE keeps far offsets harmless (SymPy, G.rope_expected_score; RoFormer's "
        "long-term decay is of a worst-case bound, G.roformer_decay). These facts inform the claim without "
        "deciding it. The position-interpolation and YaRN papers describe RoPE models failing past their "
        "training length, and the ALiBi paper measures it.",
        argument_evidence=(premise, gap),
    )


@claim(
    id="D1.7e",
    source=Source(DOC, SAY_IT),
    statement="(technical discussion) ALiBi puts a linear penalty directly on the attention score.",
    formal=r"s_{ij} = q_i\cdot k_j - m\,(i-j),\quad j \le i",
    expected=PROVED,
    why_ko="ALiBi는 query i와 key j의 점수에 −m(i − j)를 더하므로, 거리에 대한 기울기 −m의 선형 벌점이다.",
)
def d1_7e() -> Assessment:
    return Assessment(
        (from_derivation("alibi.offset_only"), from_derivation("alibi.linear_penalty")),
        explanation="ALiBi adds −m(i − j) to the score of query i and key j: linear in the distance, with "
        "slope −m per token, the same at every position. The rest of the line ('more flexible for context "
        "extension', 'RoPE may be better on unseen patterns') is a judgement and is not checked.",
    )


@claim(
    id="D1.7",
    source=Source(DOC, SAY_IT),
    statement="The 'say it like this' lines (D1.7a–D1.7e).",
    formal=r"\text{five statements, premise and conclusion separated}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="D1.7c와 D1.7d의 결론(일반화·외삽)이 출처와 어긋나므로 전체로도 그대로는 맞지 않다(확인할 수 "
    "있는 전제는 '순열 불변'을 빼고 맞다).",
    role=AGGREGATE,
)
def d1_7() -> Assessment:
    lines = {line.id: catalog.assessment(line.id) for line in (d1_7a, d1_7b, d1_7c, d1_7d, d1_7e)}
    verdicts = {key: value.verdict for key, value in lines.items()}
    return Assessment(
        tuple(e for line in lines.values() for e in line.evidence),
        explanation="Line by line: " + "; ".join(f"{key} {value}" for key, value in verdicts.items()) + ". "
        "The checkable premises hold (relative position as a linear map, RoPE's offset-only score, ALiBi's "
        "linear penalty) except 'permutation invariant', which is true only of pooled outputs (attention "
        "itself is equivariant, which is enough for D1.7b's point); the conclusions drawn from them about "
        "generalisation and extrapolation do not follow and are contradicted by the sources. Every computed "
        "check holds, but the lines are contradicted as a whole, as every claim with a contradicted part "
        "is: the sources contradict D1.7c and D1.7d.",
    )


# ------------------------------------------------------------------------------------- D1.8 (common mistake)


@claim(
    id="D1.8",
    source=Source(DOC, MISTAKES),
    statement="Past the training max_length a model with learned position embeddings (BERT, GPT-2) has no "
    "position embedding, so its performance degrades sharply.",
    formal=r"E \in \mathbb{R}^{L\times d}:\ E[p]\ \text{exists only for}\ 0 \le p < L",
    expected=CAVEAT,
    why_ko="학습 길이를 넘는 위치에는 표에 행이 없다는 요지는 맞지만, 대개 성능이 급락하는 정도가 아니라 "
    "조회 자체가 실패한다(GPU의 tf.gather만 조용히 0을 돌려준다).",
    depends_on=("D0.10",),
)
def d1_8() -> Assessment:
    table = random_position_table(512, 8, table=LearnedPositionTable)
    past_end = lookup_error(table, 512)
    evidence = (
        Evidence(
            EXACT,
            "a learned table of L = 512 rows has a row for every position 0..511",
            covers_positions_below(table, 512),
        ),
        Evidence(
            EXACT,
            "position 512 has no row: the lookup returns nothing to run on, it fails",
            past_end is not None,
            LIMITS,
            detail=(("lookup(512)", str(past_end)),),
        ),
        cite(BERT_CODE),
        cite(GPT2_CODE),
        cite(TORCH_INDEX_ERROR, LIMITS),
    )
    return Assessment(
        evidence,
        explanation="The substance is right: the table has L rows and position L has none, so past the "
        "training length the model has no position embedding and cannot be used as trained. What happens "
        f"there is stronger than a sharp degradation: the lookup fails — {past_end} — PyTorch's "
        "nn.Embedding raises IndexError, Google's BERT code fails its assertion seq_length ≤ "
        "max_position_embeddings. The one exception found is TensorFlow's tf.gather on GPU, which per its "
        "documentation silently returns 0 for an out-of-range index (GPT-2's original code looks wpe up "
        "that way); only there does the model run on, without position information. A failed lookup is "
        "the limit of 'degrades sharply', not a counterexample to it: a caveat on how the model fails, not "
        "a refutation, and the advice to check the maximum context stands.",
    )
