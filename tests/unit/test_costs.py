"""mha.attention_costs and quadratic_share: parameters, multiply-adds and the n x n part's share, by hand.

Test data first, then the tests. Every expected number below is arithmetic done in
the comments, not a call to mha.
"""

import pytest

import mha

# --- test data ---------------------------------------------------------------

# The lesson's figure: n = 2 tokens, d = 4, h = 2 heads of width hw = 2, plain multi-head.
#   w_q = w_k = w_v = w_o = 4 x 4 = 16                         parameters 64
#   projections: 3 matrices x (2 tokens x 4 x 4) = 3 x 32 = 96
#   scores: 2 heads x (2 x 2 pairs) x 2 per dot product = 16
#   weighted sums: 2 heads x (2 x 2 weights) x 2 per value = 16
#   output: 2 tokens x 4 x 4 = 32                              multiply-adds 160
#   softmax weights: 2 heads x 2 x 2 = 8
LESSON = dict(tokens=2, width=4, heads=2, kv_heads=2, head_width=2, kv_width=4, w_q=16, w_k=16, w_v=16, w_o=16,
              projections=96, scores=16, weighted_sums=16, output=32, weights=8, causal=False)
# The same tokens through one wide head (h = 1, hw = 4): every count the same but the weights.
#   scores: 1 head x 4 pairs x 4 = 16; weighted sums 16; softmax weights 1 x 2 x 2 = 4
ONE_HEAD = dict(LESSON, heads=1, kv_heads=1, head_width=4, weights=4)

# Grouped-query: n = 3, d = 8, h = 4 query heads of width 2 sharing g = 2 key/value heads.
#   kv width = 2 x 2 = 4: w_k = w_v = 8 x 4 = 32; w_q = w_o = 8 x 8 = 64    parameters 192
#   projections: 3 x 8 x 8 = 192 for queries, 3 x 8 x 4 = 96 each for keys and values: 384
#   scores: 4 heads x 9 pairs x 2 = 72; weighted sums 72 (each query head still reads all 3 keys)
#   output: 3 x 8 x 8 = 192                                                 multiply-adds 720
#   softmax weights: 4 x 9 = 36
GROUPED = dict(tokens=3, width=8, heads=4, kv_heads=2, head_width=2, kv_width=4, w_q=64, w_k=32, w_v=32, w_o=64,
               projections=384, scores=72, weighted_sums=72, output=192, weights=36, causal=False)

# Llama-3-8B, one layer, one token: d = 32 x 128 = 4096, 8 key/value heads, kv width 8 x 128 = 1024.
#   w_q = w_o = 4096^2 = 16,777,216; w_k = w_v = 4096 x 1024 = 4,194,304
#   parameters 2 x 16,777,216 + 2 x 4,194,304 = 41,943,040 (x 32 layers = 1,342,177,280)
#   projections: 16,777,216 + 2 x 4,194,304 = 25,165,824; output 16,777,216
#   one token attends to itself: scores = weighted sums = 32 heads x 1 x 128 = 4,096
LLAMA_ONE_TOKEN = dict(tokens=1, width=4096, heads=32, kv_heads=8, head_width=128, kv_width=1024,
                       w_q=16_777_216, w_k=4_194_304, w_v=4_194_304, w_o=16_777_216,
                       projections=25_165_824, scores=4096, weighted_sums=4096, output=16_777_216, weights=32,
                       causal=False)
# At 8,192 tokens: scores = 32 x 8192^2 x 128 = 8192^2 x 4096 = 67,108,864 x 4096 = 274,877,906,944
LLAMA_8K_SCORES = 274_877_906_944

# The lesson's figure under a causal mask: token 0 meets key 0, token 1 keys 0 and 1, so 3 pairs a head
# (n(n+1)/2 = 2 x 3 / 2), not 4. scores: 2 heads x 3 pairs x 2 = 12; weighted sums 12; softmax weights
# 2 x 3 = 6. Projections (96) and output (32) do not see the mask: multiply-adds 96 + 12 + 12 + 32 = 152.
LESSON_CAUSAL = dict(LESSON, scores=12, weighted_sums=12, weights=6, causal=True)

# The n x n part's share, (scores + weighted sums) / all multiply-adds:
#   the lesson: 32 / 160 = 1/5; causal 24 / 152 = 3/19.
#   Llama-3-8B, one layer over n tokens: the projections and output cost n x 41,943,040
#   (25,165,824 + 16,777,216 a token, above); scores and weighted sums 2 x 32 heads x pairs x 128 = 8,192 x pairs.
#   n = 2: pairs 4, 32,768 of 83,886,080 + 32,768 = 83,918,848 multiply-adds: 32,768 / 83,918,848 = 1/2561
#          = 0.000390..., 0.039%. (Per token: n / (n + 5,120) = 2 / 5,122.)
#   n = 8192: 8,192 x 67,108,864 = 549,755,813,888 of 8,192 x 41,943,040 = 343,597,383,680 more,
#          893,353,197,568 in all: 8192 / (8192 + 5120) = 8/13 = 0.615..., 61.5%.
#   n = 8192, causal: pairs 8,192 x 8,193 / 2 = 33,558,528, so 8,192 x 33,558,528 = 274,911,461,376
#          of 274,911,461,376 + 343,597,383,680 = 618,508,845,056: (n + 1) / (n + 1 + 10,240)
#          = 8193 / 18433 = 0.4444..., 44.4%.
#   n = 2, causal: pairs 3, 24,576 of 83,886,080 + 24,576 = 83,910,656: 3 / 10,243 = 0.000292...
SHARES = [  # (tokens, causal, the share as a fraction of whole numbers, its multiply-adds)
    (2, False, (1, 2561), 83_918_848),
    (8192, False, (8, 13), 893_353_197_568),
    (8192, True, (8193, 18433), 618_508_845_056),
    (2, True, (3, 10243), 83_910_656),
]

BAD = [  # (arguments, words of the sentence)
    ((2, 6, 4), "width 6 is not divisible by 4 heads"),
    ((2, 8, 4, 3), "4 query heads are not divisible by 3 key/value heads"),
    ((0, 4, 2), "tokens must be at least 1"),
    ((2, 4, 0), "heads must be at least 1"),
    ((2.5, 4, 2), "tokens must be a whole number"),
]


# --- tests -----------------------------------------------------------------------

@pytest.mark.parametrize("expected, args", [
    (LESSON, (2, 4, 2)),
    (ONE_HEAD, (2, 4, 1)),
    (GROUPED, (3, 8, 4, 2)),
    (LLAMA_ONE_TOKEN, (1, 4096, 32, 8)),
])
def test_counts_match_the_hand_worked_numbers(expected, args):
    assert mha.attention_costs(*args)._asdict() == expected


def test_a_causal_mask_counts_the_pairs_at_or_before_each_query():
    assert mha.attention_costs(2, 4, 2, causal=True)._asdict() == LESSON_CAUSAL
    assert mha.attention_costs(2, 4, 2, causal=True).multiply_adds == 152
    assert [mha.query_key_pairs(n, causal=True) for n in (1, 2, 3, 8192)] == [1, 3, 6, 33_558_528]
    assert [mha.query_key_pairs(n) for n in (1, 2, 3)] == [1, 4, 9]


def test_one_token_has_nothing_to_mask():
    assert mha.attention_costs(1, 8, 4, 2, causal=True)._asdict() == \
        {**mha.attention_costs(1, 8, 4, 2)._asdict(), "causal": True}


def test_the_lessons_n_by_n_share():
    assert mha.quadratic_share(mha.attention_costs(2, 4, 2)) == pytest.approx(1 / 5, abs=1e-15)
    assert mha.quadratic_share(mha.attention_costs(2, 4, 2, causal=True)) == pytest.approx(3 / 19, abs=1e-15)


@pytest.mark.parametrize("tokens, causal, fraction, multiply_adds", SHARES)
def test_llama_3_8b_n_by_n_share_is_the_hand_worked_fraction(tokens, causal, fraction, multiply_adds):
    shape = next(s for s in mha.MODEL_SHAPES if s.name == mha.COST_MODEL)
    costs = mha.model_costs(shape, tokens, causal=causal)
    assert costs.multiply_adds == multiply_adds and costs.causal is causal
    assert mha.quadratic_share(costs) == pytest.approx(fraction[0] / fraction[1], abs=1e-15)


def test_the_issues_figures_0_039_and_61_5_percent():
    """The numbers issue 23 quotes: 0.04% at 2 tokens, 62% at 8,192, and about 44% there when causal."""
    shape = next(s for s in mha.MODEL_SHAPES if s.name == mha.COST_MODEL)
    share = lambda n, causal=False: 100 * mha.quadratic_share(mha.model_costs(shape, n, causal=causal))  # noqa: E731
    assert f"{share(2):.3f}" == "0.039" and f"{share(8192):.1f}" == "61.5" and f"{share(8192, True):.1f}" == "44.4"


def test_totals_add_the_parts():
    costs = mha.attention_costs(3, 8, 4, 2)
    assert costs.parameters == 192 and costs.multiply_adds == 720


def test_llama_3_8b_from_its_published_shape():
    shape = next(s for s in mha.MODEL_SHAPES if s.name == mha.COST_MODEL)
    assert mha.model_costs(shape, 1)._asdict() == LLAMA_ONE_TOKEN
    assert mha.model_costs(shape, 1).parameters * shape.layers == 1_342_177_280
    assert mha.model_costs(shape, 8192).scores == LLAMA_8K_SCORES


@pytest.mark.parametrize("tokens, width", [(1, 4), (5, 8), (32, 64), (7, 48)])
def test_h_heads_of_width_d_over_h_cost_what_one_head_of_width_d_costs(tokens, width):
    """The identity the lesson states: every parameter and multiply-add count is free of h;
    only the number of softmax weights, h x n x n, grows with it."""
    one = mha.attention_costs(tokens, width, 1)
    for heads in mha.head_choices(width):
        many = mha.attention_costs(tokens, width, heads)
        assert many.parameters == one.parameters and many.multiply_adds == one.multiply_adds
        assert many.weights == heads * one.weights


def test_sharing_keys_and_values_saves_only_in_w_k_w_v_and_their_projections():
    plain, grouped = mha.attention_costs(3, 8, 4), mha.attention_costs(3, 8, 4, 2)
    assert (plain.w_k - grouped.w_k, plain.w_v - grouped.w_v) == (32, 32)   # 8 x 8 - 8 x 4 each
    assert plain.projections - grouped.projections == 2 * 3 * 8 * 4         # two 3 x 8 x 4 products fewer
    assert (plain.scores, plain.weighted_sums, plain.output) == (grouped.scores, grouped.weighted_sums, grouped.output)


@pytest.mark.parametrize("args, words", BAD)
def test_bad_sizes_say_why(args, words):
    for causal in (False, True):
        with pytest.raises(ValueError, match=words):
            mha.attention_costs(*args, causal=causal)
