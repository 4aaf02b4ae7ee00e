"""Section 4: the exercise buttons, what they say they set, and the claims the prose makes.

References: the worked exercise of tests/conftest.py (identity slices: head 0 unchanged, head 1
flat at 0.5), and mha called directly with mha.random_projections for the second exercise.
"""

from pathlib import Path

import pytest

import mha
from figures import FIGURES, exercise, prose
from page import state as s
from page.dom import check
from trees import find

# figures.prose() and run_data() read section 8's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

SECTION = Path(exercise.__file__).parents[1] / "sections" / "exercise.html"


def moved_heads(start, edited):
    """Per query head, whether any weight moved by at least half a printed digit (mha.weight_changes)."""
    before, after = s.compute(start).result.weights, s.compute(edited).result.weights
    return [mha.largest_change(mha.weight_changes(b, a))[0] > 0 for b, a in zip(before, after)]


# --- the buttons ---------------------------------------------------------------------

def test_the_buttons_are_the_two_exercises_the_way_back_and_a_reset():
    tree = exercise.preset_buttons()
    check(tree)
    buttons = find(tree, "button")
    assert [b[1]["id"] for b in buttons] == ["try-exercise", "try-exercise-random", "preset-lesson", "reset-all"]
    assert all(b[1]["data-action"] == b[1]["id"] and b[1]["type"] == "button" for b in buttons)
    assert "identity slices" in buttons[0][2] and "random projections" in buttons[1][2]
    assert exercise.EXERCISES == {"try-exercise": "identity", "try-exercise-random": "random"}
    assert "fig-presets" in FIGURES


def test_each_button_says_what_it_set():
    random = s.changed(s.default_state(), projections="random", seed=42)
    assert exercise.status("try-exercise", s.default_state()).startswith("Set identity slices")
    assert "random projections (seed 42)" in exercise.status("try-exercise-random", random)
    assert "kept random projections (seed 42) and the causal mask (on)" in \
        exercise.status("preset-lesson", s.changed(random, causal=True))
    assert "identity slices, seed 0, no mask, no cross-attention" in exercise.status("reset-all", s.default_state())
    with pytest.raises(ValueError, match="no section 4 button"):
        exercise.status("nope", s.default_state())


# --- the prose's claims ---------------------------------------------------------------

def test_the_first_exercise_moves_head_1_alone_even_from_a_random_masked_state():
    """'Head 0 gets the very same inputs as before, so not one of its weights can change.'"""
    messy = s.changed(s.with_heads(s.with_width(s.default_state(), 8), 4), projections="random", causal=True,
                      kv_heads=1, seed=3)
    start, edited = s.with_exercise(messy, "identity")
    assert moved_heads(start, edited) == [False, True]
    assert s.compute(edited).result.weights[1] == [[0.5, 0.5], [0.5, 0.5]]
    assert s.compute(start).result.weights[0] == s.compute(edited).result.weights[0]


@pytest.mark.parametrize("seed", range(200))
def test_the_second_exercise_moves_both_heads(seed):
    """'the new time stamp reaches head 0 as well': checked for the first 200 seeds."""
    start, edited = s.with_exercise(s.changed(s.default_state(), seed=seed), "random")
    assert moved_heads(start, edited) == [True, True]


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_the_second_exercises_sentence_quotes_mha_at_the_readers_seed(seed):
    """Issue 28: the sentence after the second exercise follows section 3's seed, not seed 0's rows."""
    weights = mha.random_projections(4, 2, seed=seed)
    before = mha.multi_head_attention(mha.LESSON_TOKENS, 2, **weights).weights
    after = mha.multi_head_attention(mha.EXERCISE_TOKENS, 2, **weights).weights
    assert all(x >= 0.01 for rows in (before, after) for h in (0, 1) for x in rows[h][0])  # 2 decimals each
    row = lambda w: "[" + ", ".join(f"{x:.2f}" for x in w) + "]"  # noqa: E731
    state = s.changed(s.default_state(), seed=seed, tokens=[[0.0, 1.0]], heads=1, kv_heads=1)  # any state: the
    (sentence,) = exercise.random_sentence(state)                                               # seed is what counts
    assert sentence == (f"With seed {seed}, head 0's first row goes from {row(before[0][0])} to {row(after[0][0])}. "
                        f"Head 1's goes from {row(before[1][0])} to {row(after[1][0])}.")
    assert '<span id="exercise-random-rows"><!--render:exercise-random-rows--></span>' in SECTION.read_text()


def test_the_seed_0_sentence_has_the_rows_worked_in_issue_28():
    (sentence,) = exercise.random_sentence(s.default_state())
    assert "head 0's first row goes from [0.75, 0.25] to [0.51, 0.49]" in sentence  # 0.7513, 0.2487; 0.5109


def test_the_section_keeps_the_status_line_and_the_moved_summary():
    section = SECTION.read_text()
    assert '<p id="exercise-status" class="note exercise-status" role="status"></p>' in section
    assert '<div id="moved-summary" role="status"><!--render:moved-summary--></div>' in section
