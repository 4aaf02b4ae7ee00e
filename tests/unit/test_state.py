"""page/state.py: the gate and every transition a reader's edit makes, in CPython (no browser).

Expected values are worked here by hand: a transition's result is a small dict
whose every field can be written down, and the gate's refusals are mha's
sentences. Projected rows are compared with numpy.
"""

import numpy as np
import pytest

import mha
from page import state as s

# --- test data ---------------------------------------------------------------

LESSON = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]
EXERCISE = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]
BLEND = [[6.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 0.0], [1.0, 0.0, 1.0, 0.0]]  # section 1's three tokens


def state(**changes):
    return {**s.default_state(), **changes}


# --- the gate ----------------------------------------------------------------

def test_the_default_state_is_the_worked_example():
    fresh = s.default_state()
    assert fresh["tokens"] == LESSON and fresh["heads"] == fresh["kv_heads"] == 2
    assert (fresh["causal"], fresh["projections"], fresh["seed"], fresh["context"], fresh["distractors"]) == \
        (False, "identity", 0, None, 0)
    assert fresh["kv"] == s.KV(s.model_shape("Llama-3-8B"), 8192, 2, 1)
    assert fresh["cost_seq_len"] == 8192  # section 2: Llama-3-8B at its full context (max_position_embeddings)
    assert fresh["kv"].shape.counts == (32, 32, 8, 128)


def test_the_gate_computes_head_one_of_the_worked_example():
    """Head 1 reads [0, 1] and [1, 0]: gap 1/sqrt(2) -> 1 / (1 + e^-0.7071) = 0.6698 on itself."""
    view = s.compute(s.default_state())
    assert round(view.result.weights[1][0][0], 4) == 0.6698
    assert view.cross is None and len(view.wide) == 2


def test_the_gate_refuses_what_mha_refuses_and_keeps_nothing():
    with pytest.raises(ValueError, match="width 4 is not divisible by 3 heads"):
        s.compute(state(heads=3, kv_heads=3))
    with pytest.raises(ValueError, match="overflowed"):
        s.compute(state(tokens=[[1e200, 0.0, 0.0, 0.0], [1e200, 0.0, 0.0, 0.0]]))


def test_the_gate_checks_cross_attention_too():
    """A context whose self-attention is fine but whose cross-attention overflows is refused."""
    with pytest.raises(ValueError, match="overflowed"):
        s.compute(state(tokens=[[1e200, 0.0, 0.0, 0.0]], context=[[1e200, 0.0, 0.0, 0.0]]))
    assert s.compute(state(context=[[1.0, 0.0, 1.0, 0.0]])).cross is not None


def test_equal_shapes_are_patchable_and_a_new_token_is_not():
    a, b = s.compute(state()), s.compute(state(tokens=EXERCISE))
    assert a.shape() == b.shape()
    assert s.compute(state(tokens=LESSON + [[0.0] * 4])).shape() != a.shape()


# --- transitions -----------------------------------------------------------------

def test_changed_replaces_settings_and_refuses_unknown_ones():
    new = s.changed(s.default_state(), seed=7, causal=True)
    assert (new["seed"], new["causal"]) == (7, True) and s.default_state()["seed"] == 0
    with pytest.raises(ValueError, match="no setting 'colour'"):
        s.changed(s.default_state(), colour="red")


def test_with_number_sets_one_slot_and_leaves_the_old_state_alone():
    old = s.default_state()
    new = s.with_number(s.with_number(old, "tokens", 1, 2, 0.0), "tokens", 1, 3, 1.0)
    assert new["tokens"] == EXERCISE and old["tokens"] == LESSON


def test_with_width_pads_with_zeros_and_fits_the_heads():
    """Width 8 keeps 2 heads (8 / 2 = 4); width 4 -> 2 after 3 heads is impossible, so heads shrink."""
    wide = s.with_width(s.default_state(), 8)
    assert wide["tokens"] == [[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.9, 0.1, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    assert (wide["heads"], wide["kv_heads"]) == (2, 2)
    eight_heads = s.with_heads(wide, 8)
    narrow = s.with_width(eight_heads, 4)
    assert narrow["tokens"] == LESSON and (narrow["heads"], narrow["kv_heads"]) == (4, 4)


def test_with_tokens_resizes_the_context_to_the_new_width():
    crossed = s.with_cross(s.default_state(), True)
    new = s.with_tokens(crossed, [[1.0, 2.0]])
    assert new["context"] == [[1.0, 0.0], [0.0, 1.0], [0.9, 0.1]] and new["heads"] == 2


def test_with_heads_keeps_grouping_when_heads_were_shared():
    """8 query heads sharing 2 kv heads, then 4 query heads: kv heads stay 2 (the largest divisor <= 2)."""
    grouped = s.changed(s.with_heads(s.with_width(s.default_state(), 8), 8), kv_heads=2)
    assert (s.with_heads(grouped, 4)["heads"], s.with_heads(grouped, 4)["kv_heads"]) == (4, 2)
    plain = s.with_heads(s.with_width(s.default_state(), 8), 8)
    assert (plain["heads"], plain["kv_heads"]) == (8, 8)


@pytest.mark.parametrize("count, rules", [
    (1, (False, True, "")), (2, (False, False, "")), (32, (True, False, "32 is the most this page draws.")),
])
def test_button_rules_follow_the_caps(count, rules):
    assert s.button_rules(count) == rules


def test_adding_and_removing_tokens_stop_at_the_caps():
    added = s.with_token_added(s.default_state(), "tokens")
    assert added["tokens"] == LESSON + [[0.0, 0.0, 0.0, 0.0]]
    assert s.with_token_removed(added, "tokens")["tokens"] == LESSON
    with pytest.raises(ValueError, match="keeps at least one token"):
        s.with_token_removed(state(tokens=[[1.0] * 4]), "tokens")
    with pytest.raises(ValueError, match="at most 32 tokens"):
        s.with_token_added(state(tokens=[[0.0] * 4] * 32), "tokens")


def test_with_cross_switches_the_default_context_on_and_off():
    on = s.with_cross(s.default_state(), True)
    assert on["context"] == [list(row) for row in s.DEFAULT_CONTEXT]
    assert s.with_cross(on, False)["context"] is None


def test_a_preset_restores_the_lessons_tokens_and_two_plain_heads_but_keeps_options():
    moved = s.changed(s.with_heads(s.with_width(s.default_state(), 8), 8), kv_heads=2, causal=True, seed=5)
    back = s.with_preset(moved, EXERCISE)
    assert (back["tokens"], back["heads"], back["kv_heads"]) == (EXERCISE, 2, 2)
    assert (back["causal"], back["seed"]) == (True, 5)


@pytest.mark.parametrize("projections", ["identity", "random"])
def test_an_exercise_is_the_lessons_tokens_then_the_edit_with_its_projections_and_no_mask(projections):
    moved = s.changed(s.with_heads(s.with_width(s.default_state(), 8), 8), kv_heads=2, causal=True, seed=5,
                      projections="random" if projections == "identity" else "identity", distractors=4)
    start, edited = s.with_exercise(moved, projections)
    assert (start["tokens"], edited["tokens"]) == (LESSON, EXERCISE)
    for new in (start, edited):
        assert (new["heads"], new["kv_heads"], new["causal"], new["projections"]) == (2, 2, False, projections)
        assert (new["seed"], new["distractors"], new["kv"]) == (5, 4, moved["kv"])  # the seed and the rest stay
    assert moved["projections"] != projections and moved["tokens"][0] == LESSON[0] + [0.0] * 4  # moved is untouched


def test_section_1s_tokens_are_edited_and_reset_on_their_own():
    """Section 1's tokens start as mha.BLEND_TOKENS; an edit or a reset there leaves every other setting alone,
    and section 3's preset, a link or an exercise leave them alone."""
    old = s.default_state()
    assert old["blend"] == BLEND
    new = s.with_number(old, "blend", 0, 0, 2.0)
    assert new["blend"] == [[2.0, 0.0, 1.0, 1.0], *BLEND[1:]] and old["blend"] == BLEND
    assert {k: v for k, v in new.items() if k != "blend"} == {k: v for k, v in old.items() if k != "blend"}
    assert s.with_blend_reset(new) == old
    assert s.with_preset(new, mha.EXERCISE_TOKENS)["blend"] == new["blend"]
    assert s.with_exercise(new, "identity")[1]["blend"] == new["blend"]
    assert s.with_link(new, {key: old[key] for key in s.FIGURE_KEYS})["blend"] == new["blend"]


def test_the_gate_computes_section_1s_blend_once_and_lends_it_to_the_next_view():
    """The View carries section 1's Blend; a View after an edit elsewhere takes the same one, not a new one,
    and an edit of section 1's tokens gets its own (token 0 = [1e200, ...] asks itself 1e400: refused)."""
    first = s.compute(s.default_state())
    assert first.blend.tokens == BLEND and first.blend.totals == [7.0, 7.0, 2.0]
    assert s.compute(s.with_number(s.default_state(), "tokens", 0, 1, 0.5), first).blend is first.blend
    edited = s.compute(s.with_number(s.default_state(), "blend", 2, 1, 0.5), first)
    assert edited.blend.tokens == [*BLEND[:2], [1.0, 0.5, 1.0, 0.0]] and edited.blend.totals == [7.0, 7.5, 2.25]
    with pytest.raises(ValueError, match="overflowed"):
        s.compute(s.with_number(s.default_state(), "blend", 0, 0, 1e200), first)


def test_section_1s_gate_scores_each_slice_and_refuses_an_overflow():
    """The query [1, 0, 1, 0] against token 0 [6, 0, 1, 1]: 6 in slots 0-1, 1 in slots 2-3, 7 in all four;
    token 1 [1, 1, 6, 0]: 1, 6, 7; itself: 1, 1, 2. Head 0 at its favourite: softmax([6, 1, 1] / sqrt 2)
    puts 1 / (1 + 2 e^(-5 / sqrt 2)) = 0.944924 on token 0."""
    blend = s.compute_blend(BLEND)
    assert blend.parts == [[6.0, 1.0], [1.0, 6.0], [1.0, 1.0]] and blend.totals == [7.0, 7.0, 2.0]
    assert blend.heads.weights[0][2][0] == pytest.approx(1 / (1 + 2 * np.exp(-5 / np.sqrt(2))), abs=1e-12)
    assert blend.tokens == BLEND and len(blend.wide.weights) == 1
    with pytest.raises(ValueError, match="overflowed"):
        s.compute_blend([[1e200] * 4, *BLEND[1:]])


def test_an_exercise_refuses_projections_it_does_not_know():
    with pytest.raises(ValueError, match="identity or random projections, not 'learned'"):
        s.with_exercise(s.default_state(), "learned")


def test_a_link_replaces_the_figure_settings_but_not_the_calculator():
    custom = s.with_kv_fields(s.default_state(), mha.ModelShape("custom", 2, 4, 2, 8), 100, 1)
    fields = {key: s.default_state()[key] for key in s.FIGURE_KEYS} | {"seed": 9}
    linked = s.with_link(custom, fields)
    assert linked["seed"] == 9 and linked["kv"] == custom["kv"]


@pytest.mark.parametrize("parse, text, value", [
    (s.parse_distractors, "1000", 1000), (s.parse_distractors, "0", 0), (s.parse_seed, "4294967295", 2**32 - 1),
    (s.parse_cost_seq_len, "1", 1), (s.parse_cost_seq_len, " 8192 ", 8192), (s.parse_cost_seq_len, "10000000", 10**7),
    (s.parse_cost_seq_len, "8,192", 8192), (s.parse_distractors, "1,000", 1000)])  # as the page prints them
def test_counts_parse_within_their_range(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize("parse, text, words", [
    (s.parse_distractors, "1001", "between 0 and 1,000, got 1,001"), (s.parse_distractors, "-1", "between 0 and 1,000"),
    (s.parse_seed, "4294967296", "between 0 and 4,294,967,295"), (s.parse_seed, "abc", "whole number"),
    (s.parse_cost_seq_len, "0", "sequence length must be between 1 and 10,000,000, got 0"),
    (s.parse_cost_seq_len, "10000001", "between 1 and 10,000,000"),
    (s.parse_cost_seq_len, "8,19", "sequence length: '8,19' is not a whole number"),  # a comma out of place
    (s.parse_cost_seq_len, "0,500", "sequence length: '0,500' is not a whole number"),  # a decimal comma
    (s.parse_cost_seq_len, "", "sequence length: '' is not a whole number")])
def test_counts_out_of_range_are_refused_with_a_sentence(parse, text, words):
    with pytest.raises(ValueError, match=words):
        parse(text)


def test_the_calculator_keeps_the_shown_models_name_when_shapes_tie():
    """Llama-3-8B and Mistral-7B-v0.1 share (32, 32, 8, 128): editing Mistral's sequence length keeps Mistral
    (and its sliding window, which the reader's fields do not hold)."""
    mistral = s.with_model(s.default_state(), "Mistral-7B-v0.1")
    typed = mha.ModelShape("custom", *mistral["kv"].shape.counts)
    edited = s.with_kv_fields(mistral, typed, 4096, 2, 3)
    assert edited["kv"] == s.KV(s.model_shape("Mistral-7B-v0.1"), 4096, 2, 3)
    assert edited["kv"].shape.window == 4096


def test_your_own_shape_keeps_the_numbers_and_drops_the_models_name_and_window():
    """Issue 30: after "your own shape" the bill no longer says Mistral-7B-v0.1 (nor applies its window)."""
    mistral = s.with_model(s.default_state(), "Mistral-7B-v0.1")
    own = s.with_own_shape(mistral)
    assert own["kv"].shape == mha.ModelShape("your own shape", 32, 32, 8, 128)
    assert own["kv"][1:] == mistral["kv"][1:] and own["kv"].shape.window is None
    longer = s.with_kv_fields(own, mha.ModelShape("custom", 32, 32, 8, 128), 4096, 2)
    assert longer["kv"].shape.name == "your own shape"  # a length typed after it keeps the reader's choice


def test_numbers_that_match_no_model_are_your_own_shape():
    edited = s.with_kv_fields(s.default_state(), mha.ModelShape("custom", 3, 4, 2, 8), 10, 1)
    assert edited["kv"].shape == mha.ModelShape("your own shape", 3, 4, 2, 8)


# --- sharing keys and values needs projections (section 6) ---------------------------

def test_the_gate_refuses_shared_key_value_heads_over_identity_slices():
    """Multi-query with identity slices: query head 1 (slots 2-3) would score against head 0's slots 0-1."""
    with pytest.raises(ValueError, match="query head 1 would score its slots 2-3 against keys made of "
                                         "query head 0's slots 0-1"):
        s.compute(state(kv_heads=1))
    assert s.compute(state(kv_heads=1, projections="random")).result.kv_head_of == [0, 0]


def test_choosing_fewer_key_value_heads_switches_on_random_projections():
    shared = s.with_kv_heads(s.default_state(), 1)
    assert (shared["kv_heads"], shared["projections"]) == (1, "random")
    plain = s.with_kv_heads(s.changed(s.default_state(), projections="identity"), 2)
    assert (plain["kv_heads"], plain["projections"]) == (2, "identity")


def test_identity_slices_give_every_query_head_its_own_key_value_head_again():
    shared = s.with_kv_heads(s.with_heads(s.with_width(s.default_state(), 8), 4), 2)
    back = s.with_projections(shared, "identity")
    assert (back["heads"], back["kv_heads"], back["projections"]) == (4, 4, "identity")
    assert s.with_projections(shared, "random") == shared
    s.compute(back)  # the gate accepts both
    s.compute(shared)


# --- the row cache -------------------------------------------------------------------

def test_projected_rows_give_numpys_product_and_fresh_lists():
    weights = mha.random_projections(8, 2, seed=9)
    tokens = np.random.default_rng(2).normal(size=(4, 8)).tolist()
    project = s.Projected((8, 2, 2, 9), weights)
    for step in range(6):
        tokens[step % 4][step] += 0.25
        project = s.Projected((8, 2, 2, 9), weights, project.rows)
        got = project(tokens, weights["w_q"])
        np.testing.assert_allclose(got, np.array(tokens) @ np.array(weights["w_q"]), rtol=0, atol=1e-12)
        got[0][0] = 123.0  # a caller changing its result must not change the next one
        assert project(tokens, weights["w_q"])[0][0] != 123.0
    assert len(project.rows) == 4 + 5  # the first call's four rows, then one new row each later edit


def test_the_rows_kept_stop_at_max_rows():
    weights = mha.random_projections(2, 1, seed=0)
    project = s.Projected((2, 1, 1, 0), weights)
    for i in range(s.Projected.MAX_ROWS + 10):
        project([[float(i), 1.0]], weights["w_q"])
    assert len(project.rows) <= s.Projected.MAX_ROWS + 1
    assert project([[2.0, 3.0]], weights["w_q"])[0] == pytest.approx(
        (np.array([2.0, 3.0]) @ np.array(weights["w_q"])).tolist(), abs=1e-15)


def test_an_edit_projects_again_only_the_token_it_changed():
    """The View before lends its weights and every row it projected; the edited token's rows are new."""
    first = s.changed(s.with_width(s.default_state(), 8), projections="random", seed=3)
    before = s.compute(first)
    kept = dict(before.projected.rows)  # what was projected before the edit
    view = s.compute(s.with_number(first, "tokens", 1, 5, 2.5), before)
    assert view.projected.weights is before.projected.weights
    token_0, token_1 = tuple(first["tokens"][0]), (0.9, 0.1, 1.0, 0.0, 0.0, 2.5, 0.0, 0.0)
    for name in ("w_q", "w_k", "w_v"):
        assert view.projected.rows[(name, token_0)] is kept[(name, token_0)]  # the same row, not computed again
        assert (name, token_1) not in kept and (name, token_1) in view.projected.rows


def test_a_view_of_other_sizes_or_another_seed_lends_nothing():
    first = s.changed(s.with_width(s.default_state(), 8), projections="random", seed=3)
    before = s.compute(first)
    for later, heads in ((s.changed(first, seed=4), 2), (s.with_heads(first, 4), 4)):
        view = s.compute(later, before)
        assert view.projected.weights is not before.projected.weights
        plain = mha.multi_head_attention(later["tokens"], heads, **mha.random_projections(8, heads, seed=later["seed"]))
        assert view.result.weights == plain.weights and view.result.outputs == plain.outputs
    assert s.compute(s.changed(first, projections="identity", kv_heads=2), before).projected is None


def test_random_projections_through_the_gate_match_plain_mha_to_the_bit():
    """The kept rows are the same numbers mha computes without them, edit after edit."""
    current = s.changed(s.with_width(s.default_state(), 8), projections="random", seed=3)
    kept = None
    for step in range(4):
        current = s.with_number(current, "tokens", step % 2, step, 0.5 * step)
        kept = s.compute(current, kept)
        plain = mha.multi_head_attention(current["tokens"], 2, **mha.random_projections(8, 2, seed=3))
        assert kept.result.weights == plain.weights and kept.result.outputs == plain.outputs


def test_the_way_back_to_the_lesson_shape_cuts_or_pads_tokens_to_width_4_and_keeps_the_rest():
    """Section 3's button (issue 28): width 8, 4 heads sharing 2 key/value heads, random projections, seed 5 ->
    width 4 (each token's first 4 slots), 2 plain heads; the projections, seed and mask stay."""
    start = s.changed(s.with_width(s.default_state(), 8), heads=4, kv_heads=2, projections="random", seed=5,
                      causal=True)
    start = s.with_number(start, "tokens", 1, 3, 7.0)
    back = s.with_lesson_shape(start)
    assert back["tokens"] == [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 7.0]]
    assert (back["heads"], back["kv_heads"], back["projections"], back["seed"], back["causal"]) == (2, 2, "random", 5, True)
    assert s.lesson_shape(back) and not s.lesson_shape(start) and s.lesson_shape(s.default_state())
    narrow = s.with_lesson_shape(s.with_width(s.default_state(), 2))
    assert narrow["tokens"] == [[1.0, 0.0, 0.0, 0.0], [0.9, 0.1, 0.0, 0.0]]  # padded with zeros
