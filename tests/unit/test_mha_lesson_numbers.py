"""The lesson's worked numbers (worked by hand in tests/conftest.py), checked against mha.

Test data first, then the tests. Every expected number below was worked out by
hand from the formula, not by calling mha.
"""

import math

import pytest

import mha

# --- test data ---------------------------------------------------------------

TOKENS = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]
EXERCISE = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]  # token 1's time slots = token 0's

# section 3: two heads of width 2, and one wide head of width 4
HEAD_0 = [[0.5177, 0.4823], [0.5141, 0.4859]]
HEAD_1 = [[0.6698, 0.3302], [0.3302, 0.6698]]
ONE_HEAD = [[0.6341, 0.3659], [0.3870, 0.6130]]
# section 1: the query (token 2, last) against token 0, token 1 and itself
BLEND = [[6.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
# section 4: head 1 goes flat, head 0 does not move, the wide head drifts
HEAD_1_EXERCISE = [[0.5, 0.5], [0.5, 0.5]]
ONE_HEAD_EXERCISE = [[0.5125, 0.4875], [0.5100, 0.4900]]


def rounded(rows):
    return [[round(w, 4) for w in row] for row in rows]


# --- tests -------------------------------------------------------------------

def test_head_zero_row_zero_worked_by_hand():
    """Head 0 reads slots 0-1: q0 = k0 = [1, 0], k1 = [0.9, 0.1].

    scores = [1, 0.9] / sqrt(2) = [0.70711, 0.63640]; their gap is 0.1 / sqrt(2) = 0.070711,
    so the weights are 1 / (1 + e^-0.070711) = 0.51767 and 0.48233.
    """
    weights = mha.multi_head_attention(TOKENS, 2).weights[0][0]
    expected = 1 / (1 + math.exp(-0.1 / math.sqrt(2)))
    assert weights[0] == pytest.approx(expected, abs=1e-15)
    assert rounded([weights]) == [[0.5177, 0.4823]]


def test_each_head_matches_the_lesson():
    result = mha.multi_head_attention(TOKENS, 2)
    assert rounded(result.weights[0]) == HEAD_0
    assert rounded(result.weights[1]) == HEAD_1


def test_head_slots_follow_the_simple_split():
    assert mha.multi_head_attention(TOKENS, 2).head_slots == [(0, 2), (2, 4)]
    assert mha.head_slots(8, 2) == [(0, 4), (4, 8)]


def test_one_wide_head_mixes_both_stories():
    _, weights = mha.single_head_attention(TOKENS)
    assert rounded(weights) == ONE_HEAD


def test_head_one_goes_flat_after_time_slots_match():
    result = mha.multi_head_attention(EXERCISE, 2)
    assert rounded(result.weights[1]) == HEAD_1_EXERCISE


def test_head_zero_does_not_move_when_only_time_slots_change():
    before = mha.multi_head_attention(TOKENS, 2).weights[0]
    after = mha.multi_head_attention(EXERCISE, 2).weights[0]
    assert after == before  # bit for bit: head 0 never reads slots 2-3


def test_one_wide_head_drifts_in_the_exercise():
    _, weights = mha.single_head_attention(EXERCISE)
    assert rounded(weights) == ONE_HEAD_EXERCISE


def test_lesson_constants_are_the_lesson_tokens():
    assert [list(row) for row in mha.LESSON_TOKENS] == TOKENS
    assert [list(row) for row in mha.EXERCISE_TOKENS] == EXERCISE
    assert mha.LESSON_HEADS == 2


def test_blend_constants_are_section_1s_tokens():
    assert [list(row) for row in mha.BLEND_TOKENS] == BLEND and mha.BLEND_HEADS == 2


def test_slice_scores_split_the_wide_heads_dot_product_worked_by_hand():
    """The query q = [1, 0, 1, 0], slices 0-1 and 2-3:
    token 0 [6, 0, 1, 1]: 1*6 + 0*0 = 6 and 1*1 + 0*1 = 1; q . k = 6 + 0 + 1 + 0 = 7
    token 1 [1, 1, 6, 0]: 1*1 + 0*1 = 1 and 1*6 + 0*0 = 6; q . k = 7
    token 2 = q:          1 and 1;                         q . k = 2
    A slice may be any run of slots: slot 3 alone gives 0*1, 0*0, 0*0."""
    parts, totals = mha.slice_scores(BLEND[2], BLEND, [(0, 2), (2, 4)])
    assert parts == [[6.0, 1.0], [1.0, 6.0], [1.0, 1.0]] and totals == [7.0, 7.0, 2.0]
    assert mha.slice_scores(BLEND[2], BLEND, [(3, 4)]) == ([[0.0], [0.0], [0.0]], [7.0, 7.0, 2.0])


def test_concat_of_identity_heads_is_the_weighted_values():
    """Head 0, token 0: 0.517670 [1, 0] + 0.482330 [0.9, 0.1] = [0.951767, 0.048233] on slots 0-1;
    head 1, token 0: 0.669762 [0, 1] + 0.330238 [1, 0] = [0.330238, 0.669762] on slots 2-3."""
    result = mha.multi_head_attention(TOKENS, 2)
    concat = [[0.951767, 0.048233, 0.330238, 0.669762],
              [0.951414, 0.048586, 0.669762, 0.330238]]
    assert result.head_outputs[0] == [pytest.approx(row[:2], abs=1e-6) for row in concat]
    assert result.concat == [pytest.approx(row, abs=1e-6) for row in concat]
    assert result.outputs == result.concat  # w_o = identity


# (the KV cache bill: tests/unit/test_kv_cache.py)


def test_entropy_of_a_flat_row_is_log2_n_and_of_a_peak_is_zero():
    assert mha.entropy([0.25] * 4) == pytest.approx(2.0)
    assert mha.entropy([1.0, 0.0, 0.0]) == 0.0


def test_head_choices_are_the_divisors():
    assert mha.head_choices(8) == [1, 2, 4, 8]
    assert mha.head_choices(12) == [1, 2, 3, 4, 6, 12]
    assert mha.kv_head_choices(4) == [1, 2, 4]


def test_weight_changes_mark_only_head_one_in_the_exercise():
    """Section 4: head 1 row 0 goes 0.6698 -> 0.5 (change -0.1698); head 0 does not move."""
    before = mha.multi_head_attention(TOKENS, 2).weights
    after = mha.multi_head_attention(EXERCISE, 2).weights
    assert mha.weight_changes(before[0], after[0]) == [[0.0, 0.0], [0.0, 0.0]]
    moved = mha.weight_changes(before[1], after[1])
    assert [round(d, 4) for d in moved[0]] == [-0.1698, 0.1698]
    assert mha.weight_changes([[0.5, 0.5]], [[0.50004, 0.49996]]) == [[0.0, 0.0]]
    assert mha.weight_changes([[1.0]], [[0.5, 0.5]]) is None


def test_largest_change_counts_and_keeps_the_sign():
    """Section 4's head 1: four weights move by 0.1698, the first of them down."""
    changes = mha.weight_changes(mha.multi_head_attention(TOKENS, 2).weights[1],
                                 mha.multi_head_attention(EXERCISE, 2).weights[1])
    moved, largest = mha.largest_change(changes)
    assert (moved, round(largest, 4)) == (4, -0.1698)
    assert mha.largest_change([[0.0, 0.0]]) == (0, 0.0)
    assert mha.largest_change([[0.1, -0.3], [0.2, 0.0]]) == (3, -0.3)


@pytest.mark.parametrize("width, heads, kv_heads, wanted, expected", [
    (8, 4, 4, None, (4, 4)),    # 4 still divides 8: nothing changes
    (6, 4, 4, None, (3, 3)),    # 4 does not divide 6: the largest divisor below it, and plain stays plain
    (6, 4, 2, None, (3, 1)),    # grouped: the largest divisor of 3 that is at most 2
    (16, 4, 2, 8, (8, 2)),      # a chosen head count keeps the 2 shared key/value heads
    (16, 4, 4, 8, (8, 8)),      # plain multi-head follows the new head count
])
def test_fit_heads_changes_as_little_as_it_can(width, heads, kv_heads, wanted, expected):
    assert mha.fit_heads(width, heads, kv_heads, wanted) == expected


def test_fit_heads_refuses_a_wanted_count_that_does_not_divide():
    with pytest.raises(ValueError, match="width 8 is not divisible by 3 heads"):
        mha.fit_heads(8, 2, 2, wanted=3)


def test_weight_ratios_count_a_row_in_units_of_one_key_however_many_keys_share_it():
    """Section 9's head 0 with one distractor: scores 8, 0 and 4 (token 0, the distractor, the query itself),
    over sqrt 2. Each weight is e^(score) / Z, so over the distractor's it is e^(gap / sqrt 2): token 0
    e^(8 / sqrt 2) = e^5.6569 = 286.25, the query e^(4 / sqrt 2) = e^2.8284 = 16.919. Five more distractors
    (score 0) change Z, not the ratios."""
    root2 = math.sqrt(2)
    hand = [math.exp(8 / root2), 1.0, math.exp(4 / root2)]
    assert [round(r, 2) for r in hand] == [286.25, 1.0, 16.92]
    assert mha.weight_ratios(mha.softmax([8 / root2, 0.0, 4 / root2]), 1) == pytest.approx(hand, rel=1e-12)
    crowd = mha.weight_ratios(mha.softmax([8 / root2, *[0.0] * 6, 4 / root2]), 1)
    assert [crowd[0], crowd[-1]] == pytest.approx([hand[0], hand[2]], rel=1e-12)
    assert mha.weight_ratios([0.25, 0.5, 0.25], 0) == [1.0, 2.0, 1.0]


@pytest.mark.parametrize("weights, unit, refusal", [
    ([1.0, 0.0], 1, "key 1 has weight 0: it cannot be the unit"),
    ([0.5, 0.5], 2, "key 2 is not one of the row's 2 keys")])
def test_weight_ratios_refuse_a_unit_that_is_no_weight(weights, unit, refusal):
    with pytest.raises(ValueError, match=f"^{refusal}$"):
        mha.weight_ratios(weights, unit)


@pytest.mark.parametrize("heads, kv_heads, group", [(8, 2, 4), (32, 8, 4), (71, 1, 71), (4, 4, 1)])
def test_group_size_is_the_query_heads_per_key_value_head(heads, kv_heads, group):
    assert mha.group_size(heads, kv_heads) == group


def test_group_size_refuses_key_value_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="^6 query heads are not divisible by 4 key/value heads$"):
        mha.group_size(6, 4)
