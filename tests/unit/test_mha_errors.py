"""Bad input raises ValueError whose message names the values; nothing returns NaN."""

import math

import pytest

import mha
from mha.projections import check_weight

GOOD = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]


@pytest.mark.parametrize("call, message", [
    (lambda: mha.multi_head_attention([], 2), "token"),
    (lambda: mha.multi_head_attention([[1.0, 2.0], [1.0]], 1), "token 1 has width 1, expected 2"),
    (lambda: mha.multi_head_attention([[1.0, math.nan]], 1), "token 0 slot 1 must be finite"),
    (lambda: mha.multi_head_attention([[1.0, math.inf]], 1), "must be finite"),
    (lambda: mha.multi_head_attention([[1.0, "2"]], 1), "must be a number"),
    (lambda: mha.multi_head_attention([[0.0] * 6], 4), "width 6 is not divisible by 4 heads"),
    (lambda: mha.multi_head_attention(GOOD, 0), "heads must be at least 1"),
    (lambda: mha.multi_head_attention(GOOD, 4, kv_heads=3), "4 query heads are not divisible by 3 key/value heads"),
    (lambda: mha.multi_head_attention(GOOD, 2, context=[[1.0, 2.0]]), "context token 0 has width 2, expected 4"),
    (lambda: mha.multi_head_attention(GOOD, 2, causal=True, context=GOOD), "the causal mask is for self-attention"),
    (lambda: mha.single_head_attention(GOOD, causal=True, context=GOOD), "pass causal=False with context="),
    (lambda: mha.multi_head_attention(GOOD, 2, w_q=[[1.0] * 4] * 3), "w_q must have 4 rows"),
    (lambda: mha.multi_head_attention(GOOD, 2, kv_heads=1, w_k=[[1.0] * 4] * 4), "w_k must have 2 columns"),
    (lambda: mha.multi_head_attention([[1e200] * 4], 1), "overflowed"),
    (lambda: mha.Projection([[1.0, math.nan]]), "projection row 0 slot 1 must be finite"),
    (lambda: mha.Projection([[1.0], [1.0, 2.0]]), "projection row 1 has width 2, expected 1"),
    (lambda: mha.Projection([]), "projection row must be a non-empty list"),
    (lambda: mha.Projection("12"), "a projection must be a non-empty list of rows, got str"),
    (lambda: mha.softmax([]), "at least one score"),
    (lambda: mha.softmax([-math.inf, -math.inf]), "no finite score"),
    (lambda: mha.softmax([1.0, math.nan]), "not a number"),
    (lambda: mha.attention([[1.0]], [[1.0]], [[1.0]], mask=[[False]]), "attend to no key"),
    (lambda: mha.attention([[1.0]], [[1.0], [2.0]], [[1.0]]), "2 keys but 1 values"),
    (lambda: mha.attention([[1.0]], [[1.0]], [[1.0]], mask=[[True, True]]), "mask must be 1 x 1"),
    (lambda: mha.merge_heads([]), "at least one head"),
    (lambda: mha.slice_scores([1.0, 0.0], [[1.0, 0.0]], [(0, 3)]), "slice 0:3 is not within the 2 slots"),
    (lambda: mha.slice_scores([1.0, 0.0], [[1.0]], [(0, 1)]), "key 0 has width 1, expected 2"),
    (lambda: mha.slice_scores([1e200, 1e200], [[1e200, 1e200]], [(0, 1), (1, 2)]), "slice score overflowed"),
    (lambda: mha.kv_cache_bytes(0, 8, 4096, 128), "layers must be at least 1"),
    (lambda: mha.kv_cache_bytes(32, 8, 4096, 128, bytes_per_value=-2), "bytes per number must be at least 0.125 \\(one bit\\)"),
    (lambda: mha.kv_cache_bill(32, 32, 5, 4096, 128), "32 query heads are not divisible by 5"),
    (lambda: mha.random_projections(6, 4), "width 6 is not divisible by 4 heads"),
    (lambda: mha.random_projections(8, 2, seed="x"), "seed must be a whole number"),
])
def test_bad_input_raises_value_error_naming_the_values(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("text, message", [
    ("", "token 0 slot 1 is empty"),
    ("   ", "is empty"),
    ("abc", "'abc' is not a number"),
    ("NaN", "'NaN' is not a finite number"),
    ("Infinity", "is not a finite number"),
    ("-inf", "is not a finite number"),
    ("1e309", "'1e309' is not a finite number"),
    ("1_000", "is not a number"),
    ("<script>", "is not a number"),
])
def test_parse_number_rejects_what_is_not_a_finite_number(text, message):
    with pytest.raises(ValueError, match=message):
        mha.parse_number(text, "token 0 slot 1")


def test_parse_number_accepts_plain_numbers():
    assert [mha.parse_number(t, "x") for t in ("0.9", " -2 ", "1e-3", "+4")] == [0.9, -2.0, 0.001, 4.0]


@pytest.mark.parametrize("text, message", [
    ("2.5", "'2.5' is not a whole number"),
    ("", "is not a whole number"),
    ("-1", "must be between 1 and 8, got -1"),
    ("99999999999", "must be between 1 and 8"),
])
def test_parse_count_names_the_range(text, message):
    with pytest.raises(ValueError, match=message):
        mha.parse_count(text, "heads", 1, 8)


def test_parse_tokens_caps_the_size_so_no_input_freezes_the_tab():
    with pytest.raises(ValueError, match="at most 32 tokens, got 33"):
        mha.parse_tokens([["1"]] * 33)
    with pytest.raises(ValueError, match="width must be between 1 and 64, got 65"):
        mha.parse_tokens([["1"] * 65])
    with pytest.raises(ValueError, match="context token 1 has 1 slots, context token 0 has 2"):
        mha.parse_tokens([["1", "2"], ["1"]], "context token")
    assert mha.parse_tokens([["1", "0.5"]]) == [[1.0, 0.5]]


def test_huge_but_finite_inputs_give_exact_peaks_not_nan():
    """Scores of +-1e300 / sqrt(2): each token matches itself only, so each row is one sharp peak."""
    result = mha.multi_head_attention([[1e150, -1e150], [-1e150, 1e150]], 1)
    assert result.weights == [[[1.0, 0.0], [0.0, 1.0]]]


@pytest.mark.parametrize("text", ["1_0", "１２", "٣"])
def test_parse_count_and_number_take_plain_ascii_only(text):
    with pytest.raises(ValueError, match="is not a"):
        mha.parse_count(text, "heads", 1, 99)
    with pytest.raises(ValueError, match="is not a"):
        mha.parse_number(text, "token 0 slot 0")


def test_long_reader_text_is_cut_short_in_messages():
    with pytest.raises(ValueError) as caught:
        mha.parse_number("x" * 5000, "token 0 slot 0")
    assert len(str(caught.value)) < 80


def test_a_projection_is_still_refused_in_a_shape_it_does_not_fit():
    """A Projection's numbers were checked when it was made; its shape is checked at every call."""
    w = mha.random_projections(4, 2, kv_heads=1)["w_k"]  # 4 x 2
    assert w.shape == (4, 2)
    mha.multi_head_attention(GOOD, 2, kv_heads=1, w_k=w)
    with pytest.raises(ValueError, match="w_q must have 4 columns, got 2"):
        mha.multi_head_attention(GOOD, 2, kv_heads=1, w_q=w)
    with pytest.raises(ValueError, match="w_k must have 8 rows .one per input slot., got 4"):
        mha.multi_head_attention([[1.0] * 8], 2, kv_heads=1, w_k=w)


def test_a_projection_keeps_the_numbers_it_was_checked_with():
    """Projection copies its rows into tuples: changing the list it came from, or it, changes nothing."""
    rows = [[1.0, 0.0, 0.0, 0.0] for _ in range(4)]
    w = mha.Projection(rows)
    rows[2][1] = math.nan
    assert w[2] == (1.0, 0.0, 0.0, 0.0) and all(type(row) is tuple for row in w)
    with pytest.raises(TypeError):
        w[2][1] = math.nan
    with pytest.raises(AttributeError):
        w.shape = (1, 1)
    with pytest.raises(AttributeError):
        w.checked = False  # __slots__ = (): no attribute to add either
    same = [[1.0, 0.0, 0.0, 0.0] for _ in range(4)]
    assert mha.multi_head_attention(GOOD, 2, w_q=w).weights == mha.multi_head_attention(GOOD, 2, w_q=same).weights


def test_check_weight_trusts_a_projections_numbers_and_checks_everything_else():
    """The fast path: a Projection is recognised by its type, so a forged one (made without
    Projection's check) passes on its shape alone; the same numbers as a plain tuple are refused."""
    forged = tuple.__new__(mha.Projection, [(math.nan, 0.0)] * 2)
    check_weight("w_q", forged, 2, 2)
    with pytest.raises(ValueError, match="w_q row 0 slot 0 must be finite"):
        check_weight("w_q", tuple(forged), 2, 2)


def test_list_weights_are_checked_again_after_they_change():
    """A list can change between calls: a NaN written into checked list weights is still caught."""
    w = [[1.0, 0.0, 0.0, 0.0] for _ in range(4)]
    mha.multi_head_attention(GOOD, 2, w_q=w)
    w[2][1] = math.nan
    with pytest.raises(ValueError, match="w_q row 2 slot 1 must be finite"):
        mha.multi_head_attention(GOOD, 2, w_q=w)


def test_tuple_weights_holding_lists_are_checked_every_time():
    """Only a tuple of tuples counts as unchangeable: a tuple of lists is checked on each call."""
    w = tuple([1.0, 0.0, 0.0, 0.0] for _ in range(4))
    mha.multi_head_attention(GOOD, 2, w_q=w)
    w[0][0] = math.inf
    with pytest.raises(ValueError, match="w_q row 0 slot 0 must be finite"):
        mha.multi_head_attention(GOOD, 2, w_q=w)
