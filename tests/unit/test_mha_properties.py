"""Identities that must hold for any input (hypothesis)."""

import math

from hypothesis import given, strategies as st

import mha

finite = st.floats(min_value=-50, max_value=50, allow_nan=False)
huge = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)


@st.composite
def sequences(draw, max_tokens=5):
    """(tokens, heads, kv_heads): tokens n x d, heads | d, kv_heads | heads."""
    head_width = draw(st.integers(1, 3))
    heads = draw(st.sampled_from([1, 2, 4]))
    kv_heads = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    n = draw(st.integers(1, max_tokens))
    row = st.lists(finite, min_size=heads * head_width, max_size=heads * head_width)
    return draw(st.lists(row, min_size=n, max_size=n)), heads, kv_heads


@given(st.lists(huge, min_size=1, max_size=12))
def test_softmax_sums_to_one_even_at_1e300(scores):
    weights = mha.softmax(scores)
    assert math.isclose(sum(weights), 1.0, abs_tol=1e-12)
    assert all(0.0 <= w <= 1.0 for w in weights)


@given(st.lists(finite, min_size=1, max_size=12), finite)
def test_softmax_is_shift_invariant(scores, shift):
    shifted = mha.softmax([s + shift for s in scores])
    for a, b in zip(mha.softmax(scores), shifted):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def test_softmax_does_not_overflow_at_plus_minus_1e300():
    assert mha.softmax([1e300, -1e300]) == [1.0, 0.0]
    assert mha.softmax([1e300, 1e300]) == [0.5, 0.5]
    assert mha.softmax([-1e300, -1e300, -1e300]) == [1 / 3] * 3


@given(st.lists(finite, min_size=2, max_size=8))
def test_masked_scores_get_exactly_zero(scores):
    weights = mha.softmax([-math.inf] + scores)
    assert weights[0] == 0.0
    assert math.isclose(sum(weights), 1.0)


@given(sequences())
def test_kv_heads_equal_to_heads_is_plain_multi_head(case):
    tokens, heads, _ = case
    assert mha.multi_head_attention(tokens, heads, kv_heads=heads) == mha.multi_head_attention(tokens, heads)


@given(sequences())
def test_cross_attention_to_itself_is_self_attention(case):
    tokens, heads, kv_heads = case
    plain = mha.multi_head_attention(tokens, heads, kv_heads=kv_heads)
    assert mha.multi_head_attention(tokens, heads, kv_heads=kv_heads, context=tokens) == plain


@given(sequences())
def test_causal_weights_are_zero_above_the_diagonal(case):
    tokens, heads, kv_heads = case
    for head in mha.multi_head_attention(tokens, heads, kv_heads=kv_heads, causal=True).weights:
        for i, row in enumerate(head):
            assert all(w == 0.0 for w in row[i + 1:])
            assert math.isclose(sum(row), 1.0)


@given(sequences())
def test_first_token_under_causal_mask_sees_only_itself(case):
    tokens, heads, kv_heads = case
    result = mha.multi_head_attention(tokens, heads, kv_heads=kv_heads, causal=True)
    assert all(head[0][0] == 1.0 for head in result.weights)


@given(sequences())
def test_split_then_merge_round_trips(case):
    tokens, heads, _ = case
    assert mha.merge_heads(mha.split_heads(tokens, heads)) == tokens


@given(sequences())
def test_slice_scores_sum_to_the_wide_heads_dot_product(case):
    """q . k = sum over the heads' slices of q[a:b] . k[a:b]: the one wide head's score is the heads' scores added;
    both sides against dot products written out here, not mha's."""
    tokens, heads, _ = case
    query, width = tokens[-1], len(tokens[0])
    parts, totals = mha.slice_scores(query, tokens, mha.head_slots(width, heads))
    assert len(parts) == len(totals) == len(tokens)
    hw = width // heads
    for key, row, total in zip(tokens, parts, totals):
        dot = sum(q * k for q, k in zip(query, key))
        assert math.isclose(total, dot, rel_tol=1e-9, abs_tol=1e-9)
        expected = [sum(query[s] * key[s] for s in range(h * hw, (h + 1) * hw)) for h in range(heads)]
        assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(row, expected))
        assert len(row) == heads and math.isclose(sum(row), total, rel_tol=1e-9, abs_tol=1e-9)
