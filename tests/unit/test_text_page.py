"""Section 9, heads on the reader's own prompt: the experiments' texts, the stepwise reading, the trees, the prose.

References: texts and ids worked by hand (beside each case); where the number is the model's output,
mha.text's own tested functions (read, continuation_probability, greedy), called here directly, and
numpy for the products; the measurements' numbers formatted by hand from model.measurements. How a sentence
prints a probability or a character (p_text, pair, shown below) is the lesson's rule written out here: the page's
own formatters are tested on hand-worked cases, never used to make an expected text.
"""

import dataclasses
import json
import math

import numpy as np
import pytest

import mha.text
import mha.text_lesson as lesson
from figures import text as fig
from page import dom
from trees import class_list, find, nodes, text

MODEL = mha.text.load()
DEFAULT = lesson.DEFAULT_PROMPT
SHOWN = {"\n": "\u21b5", " ": "\u2423"}  # the page draws a newline as a return arrow, a space as an open box


# --- how a sentence prints what the model computed: the lesson's rules, written here, not the page's formatters

def shown(text):
    return "".join(SHOWN.get(c, c) for c in text)


def p_text(p):
    """A probability as a sentence prints it: 2 decimals; under 0.01, 2 significant digits (0.0071, 0.000059)."""
    return f"{p:.2f}" if p >= 0.01 or p <= 0 else f"{p:.{1 - math.floor(math.log10(p))}f}"


def pair(a, b):
    """Two probabilities side by side: as p_text prints them, or to 3, then 4 decimals while they would print alike."""
    if a == b or p_text(a) != p_text(b):
        return p_text(a), p_text(b)
    digits = 3 if f"{a:.3f}" != f"{b:.3f}" else 4
    return f"{a:.{digits}f}", f"{b:.{digits}f}"


def run(steps):
    """A generator's return value, counting its yields: (value, yields)."""
    count = 0
    try:
        while True:
            next(steps)
            count += 1
    except StopIteration as done:
        return done.value, count


# --- the lesson's texts -------------------------------------------------------------------------

def test_the_default_prompt_is_a_tool_result_whose_id_the_reply_repeats_and_fits_the_context():
    assert DEFAULT == "tool: k7q2xm\nai: k7q2xm"
    assert mha.text.parse_text(MODEL, DEFAULT) == DEFAULT and len(DEFAULT) <= MODEL.context


@pytest.mark.parametrize("typed, expected", [
    # 'tool: k7q2xm\nai: k7q2xm': k7q2xm at 6 and at 17; half of 6 is 3, so the prompt stops after 'k7q'
    (DEFAULT, lesson.Id("k7q2xm", 6, 17, 3)),
    ("abc abc", lesson.Id("abc", 0, 4, 1)),            # 3 characters: the prompt keeps 'a', asks for 'bc'
    ("abcabc", None),                                  # one word: a run inside a word is no id
    ("k7q2xm k7q2", None),                             # the later word a prefix of the earlier: not yet diverged
    ("id: ab12 x ab12 y ab12", lesson.Id("ab12", 11, 18, 2)),  # three copies: the last and the nearest before it
    # the reader's own near-duplicate: the shared start 'k7q', then the two real ends (2xm, 3yn)
    ("tool: k7q2xm\nai: k7q3yn", lesson.Id("k7q2xm", 6, 17, 3, "k7q3yn")),
    ("x: k7q2xm k7q2xm y: k7q3yn", lesson.Id("k7q2xm", 10, 20, 3, "k7q3yn")),  # the longest shared start wins
    ("tool: k7q2xm\nai: k7q", None),                   # the reply half typed: a prefix of the id, no near-duplicate yet
    ("ab: ab:", None),                                 # ':' and ' ' are no id's: only 'ab' repeats, under 3
    ("hello", None),
])
def test_find_id_takes_whole_words_repeated_exactly_or_after_a_shared_start(typed, expected):
    assert lesson.find_id(typed) == expected


def test_the_near_duplicate_keeps_the_start_and_moves_each_end_character_one_on():
    found = lesson.find_id(DEFAULT)
    assert (found.end, found.near) == ("2xm", "k7q3yn")  # 2 -> 3, x -> y, m -> n
    assert lesson.near_end("9z_") == "a0_"  # 9 -> a, z wraps to 0, '_' is kept


def test_the_near_duplicate_prompts_are_one_copy_then_a_second_copy_inserted_after_the_first():
    assert lesson.near_duplicate_prompts(DEFAULT, MODEL.context) == [
        ("one", "tool: k7q2xm\nai: k7q"), ("exact", "tool: k7q2xm k7q2xm\nai: k7q"),
        ("near", "tool: k7q2xm k7q3yn\nai: k7q")]
    assert lesson.find_id(DEFAULT).near_end == "3yn"


def test_a_readers_own_near_duplicate_is_tested_as_written_on_its_two_real_ends():
    typed = "tool: k7q2xm\nai: k7q9ab"
    assert lesson.near_duplicate_prompts(typed, MODEL.context) == [("yours", "tool: k7q2xm\nai: k7q")]
    trees = fig.experiment_trees(fig.with_text(fig.default_state(), typed))
    said = text(trees["fig-text-near"])
    p = {end: mha.text.continuation_probability(MODEL, "tool: k7q2xm\nai: k7q", end).probability
         for end in ("2xm", "9ab")}
    assert said.startswith("Your near-duplicate, as written, tool:\u2423k7q2xm\u21b5ai:\u2423k7q: ")
    first, second = pair(p["2xm"], p["9ab"])
    assert f"{first} for 2xm, {second} for 9ab" in said
    assert "k7q k7q" not in said  # no copy inserted that would split the reader's id


def test_the_moved_prompt_keeps_the_copys_line_whole_at_the_start_of_a_full_context():
    here, back, distance = lesson.moved_back_prompts(DEFAULT, MODEL.context)
    assert here == "tool: k7q2xm\nai: k7q"
    # 32 - 20 (the prompt) - 3 (the end) = 9 characters of filler after 'tool: k7q2xm' (label and id together)
    assert back == "tool: k7q2xm" + lesson.FILLER[:9] + "\nai: k7q"
    assert len(back) + len("2xm") == MODEL.context
    assert distance == 29 - 3 - 6  # the later word starts at 26; the copy at 6
    # a copy in the middle of a line moves with the line's start; the lines before it stay
    assert lesson.moved_back_prompts("a\nid: ab12 x\nab12", 32)[1].startswith("id: ab12 and the")


@pytest.mark.parametrize("typed, sentence", [
    ("hello", "No id to test"),
    ("ab12" + " " * 22 + "ab12", "over the model's 32"),  # 30 characters: a second copy (5 more) cannot fit
])
def test_an_experiment_that_cannot_run_says_why(typed, sentence):
    with pytest.raises(ValueError, match=sentence):
        lesson.near_duplicate_prompts(typed, MODEL.context)


def test_an_id_already_at_the_start_of_a_full_context_cannot_move_back():
    full = "ab12" + " " * 24 + "ab12"  # 32 characters: the prompt (30) and the end (12) fill the context
    with pytest.raises(ValueError, match="cannot move further back"):
        lesson.moved_back_prompts(full, MODEL.context)


# --- reading in steps: the same numbers as mha.text's own functions ----------------------------------

def test_reading_in_steps_gives_mha_text_reads_reading_one_yield_per_character():
    reading, yields = run(lesson.read_steps(MODEL, DEFAULT, [(0, 1)]))
    whole = mha.text.read(MODEL, DEFAULT, [(0, 1)])
    assert yields == len(DEFAULT)
    np.testing.assert_allclose(np.array(reading.logits), np.array(whole.logits), atol=1e-12)
    for layer in range(MODEL.layers):
        for head in range(MODEL.heads):
            for a, b in zip(reading.weights[layer][head], whole.weights[layer][head]):
                np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("off", [(), ((0, 1),), ((1, 0), (1, 1))])
def test_a_trial_gives_continuation_probability_for_each_end_and_names_the_one_greedy_writes(off):
    near, other = lesson.near_duplicate_prompts(DEFAULT, MODEL.context)[2][1], "3yn"
    trial, _ = run(lesson.trial_steps(MODEL, near, ["2xm", other], off))
    for end in ("2xm", other):
        assert trial.probabilities[end] == pytest.approx(
            mha.text.continuation_probability(MODEL, near, end, off).probability, rel=1e-12)
    written = mha.text.greedy(MODEL, near, 3, off).text
    assert trial.copied == (written if written in ("2xm", other) else None)


# --- the state -----------------------------------------------------------------------------------

@pytest.mark.parametrize("typed", ["", "x" * 33, "caf\u00e9", "tab\there"])
def test_bad_text_is_refused_with_mha_texts_own_sentence(typed):
    with pytest.raises(ValueError) as expected:
        mha.text.parse_text(MODEL, typed)
    with pytest.raises(ValueError) as got:
        fig.with_text(fig.default_state(), typed)
    assert str(got.value) == str(expected.value) and str(got.value)


def test_the_text_is_kept_lower_cased_and_the_chosen_row_only_while_it_exists():
    state = fig.with_chosen(fig.with_text(fig.default_state(), "ABC ABC"), 5)
    assert state["text"] == "abc abc" and fig.chosen(state) == 5
    shorter = fig.with_text(state, "abcd")
    assert shorter["chosen"] is None and fig.chosen(shorter) == 3  # row 5 is gone: the last row
    with pytest.raises(ValueError, match="position 4 is not in the text"):
        fig.with_chosen(shorter, 4)
    assert fig.with_chosen(state, 6)["chosen"] is None  # the last row: it follows the text as it grows


@pytest.mark.parametrize("before, after, typed", [
    ("abc", "abcd", "d"),        # typed at the end: the KV cache
    ("abc", "abcde", "de"),
    ("abc", "abd", None),        # an edit in the middle: the whole text again
    ("abc", "ab", None),         # a deletion
    ("abc", "abc", None),
])
def test_appended_tells_a_character_typed_at_the_end_from_any_other_edit(before, after, typed):
    old = fig.with_text(fig.default_state(), before)
    assert fig.appended(fig.with_text(old, after), old) == typed


def test_a_switch_change_is_never_appended():
    old = fig.with_text(fig.default_state(), "abc")
    new = fig.with_switch(fig.with_text(old, "abcd"), (0, 1), True)
    assert fig.appended(new, old) is None and fig.with_switch(new, (0, 1), False)["off"] == frozenset()


# --- the trees -------------------------------------------------------------------------------------

def test_what_the_model_reads_shows_each_character_and_its_guess_outlined_where_the_text_agrees():
    state = fig.with_switch(fig.default_state(), (1, 1), True)
    reading = mha.text.read(MODEL, DEFAULT, [(1, 1)])
    tree = fig.reads(fig.read(state))
    rows = find(tree, "tr")
    # one column per character and one for the character after the text, which only the guess row fills
    assert [text(td) for td in rows[0][2:]] == list(shown(DEFAULT)) + [""]
    assert text(rows[1][2]) == ""  # nothing guesses the first character
    guesses = rows[1][3:]  # the guess for character i + 1 stands under character i + 1
    expected = [MODEL.vocab[int(np.argmax(row))] for row in reading.probabilities]
    assert [text(td) for td in guesses] == [shown(c) for c in expected]
    hits = [i for i, g in enumerate(expected) if i + 1 < len(DEFAULT) and g == DEFAULT[i + 1]]
    assert [i for i, td in enumerate(guesses) if "hit" in class_list(td)] == hits
    assert all(text(guesses[i]) == text(rows[0][2 + i + 1]) for i in hits)  # an outlined guess sits under its match
    assert f"({len(hits)} of {len(DEFAULT) - 1})" in text(tree)
    for td, row in zip(guesses, reading.probabilities):
        assert f"p = {max(row):.4f}" in td[1]["title"]


def test_each_map_names_the_chosen_rows_exact_weights_and_draws_an_off_head_as_off():
    state = fig.with_chosen(fig.with_switch(fig.default_state(), (0, 1), True), 17)
    reading = mha.text.read(MODEL, DEFAULT, [(0, 1)])
    tree = fig.maps(fig.read(state), state)
    figures = find(tree, "figure")
    assert len(figures) == MODEL.layers * MODEL.heads
    for figure, (layer, head) in zip(figures, MODEL.names):
        cells = [n for n in nodes(figure) if n[0] == "rect" and "data-q" in n[1]]
        row = reading.weights[layer][head][17]
        assert [c[1]["data-k"] for c in cells] == list(range(18)) and all(c[1]["data-q"] == 17 for c in cells)
        for cell, weight in zip(cells, row):
            assert text(cell).endswith(f": {weight:.4f}")
        off = (layer, head) == (0, 1)
        assert ("off" in class_list(figure)) == off
        assert ("(off, adds nothing)" in text(find(figure, "figcaption")[0])) == off
        top = int(np.argmax(row))
        assert f"at {top}, {row[top]:.2f}." in text(figure)  # (every weight here is >= 0.01: asserted)
        assert row[top] >= 0.01
    top3 = np.argsort(-np.array(reading.probabilities[17]), kind="stable")[:3]  # numpy's order, not the figure's
    p = [reading.probabilities[17][t] for t in top3]
    assert p[0] >= 0.01 > p[1] > p[2]  # so one number to 2 decimals, two to 2 significant digits (not 0.01, 0.01)
    said = ", ".join(f"{shown(MODEL.vocab[t])} ({x:.2f})" if x >= 0.01 else
                     f"{shown(MODEL.vocab[t])} ({x:.2g})" for t, x in zip(top3, p))
    assert f"After 17 ({shown(DEFAULT[17])}) it expects {said}." in text(tree)
    assert sum(1 for n in nodes(tree) if n[0] == "rect" and n[1].get("tabindex") == 0) == len(figures)


def test_a_click_picks_the_row_under_it():
    # rows start under the 14 px axis margin and are 10 px tall: y = 14..23 is row 0, 184..193 row 17
    assert [fig.row_at(y) for y in (3, 13.9, 14, 23.9, 24, 189)] == [None, None, 0, 0, 1, 17]


def test_the_map_draws_each_cell_once_in_its_weights_bucket():
    """Every cell j <= i of every row lies in exactly one rectangle of its weight's bucket (a path's run, or the
    chosen row's own <rect>); none above the diagonal."""
    reading = fig.read(fig.default_state())
    rows = reading.weights[1][1]
    svg = fig.head_map(rows, DEFAULT, "layer 1 head 1", 5, False)
    covered = {}
    for path in (n for n in nodes(svg) if n[0] == "path"):
        bucket = int(path[1]["class"][1:])
        for part in path[1]["d"].split("M")[1:]:
            x, rest = part.split(" ", 1)
            y, width = rest.split("h")[0], rest.split("h")[1].split("v")[0]
            i = (int(y) - fig.MARGIN) // fig.CELL
            for j in range((int(x) - fig.MARGIN) // fig.CELL, (int(x) - fig.MARGIN + int(width)) // fig.CELL):
                assert (i, j) not in covered
                covered[i, j] = bucket
    for cell in (n for n in nodes(svg) if n[0] == "rect"):  # the chosen row: a readable <rect> a cell
        i, j = cell[1]["data-q"], cell[1]["data-k"]
        assert (i, j) not in covered and (cell[1]["x"], cell[1]["y"]) == (fig.MARGIN + j * fig.CELL, fig.MARGIN + i * fig.CELL)
        covered[i, j] = int(cell[1]["class"].split()[0][1:])
    assert covered == {(i, j): min(9, int(rows[i][j] * 10)) for i in range(len(DEFAULT)) for j in range(i + 1)}


def test_the_switches_are_one_checkbox_per_head_checked_when_off():
    boxes = find(fig.switches(frozenset({(1, 0)})), "input")
    assert [b[1]["data-text-head"] for b in boxes] == ["0.0", "0.1", "1.0", "1.1"]
    assert [b[1]["checked"] for b in boxes] == [False, False, True, False]


@pytest.mark.parametrize("off", [frozenset(), frozenset({(0, 1)}), frozenset({(0, 0)})])
def test_the_experiments_sentences_print_mha_texts_probabilities(off):
    state = {**fig.default_state(), "off": off}
    trees = fig.experiment_trees(state)
    near_lines = [text(line) for line in trees["fig-text-near"]]
    moved_lines = [text(line) for line in trees["fig-text-moved"]]
    one, exact, near = (prompt for _, prompt in lesson.near_duplicate_prompts(DEFAULT, MODEL.context))
    here, back, _ = lesson.moved_back_prompts(DEFAULT, MODEL.context)

    def p(prompt, end):
        return mha.text.continuation_probability(MODEL, prompt, end, sorted(off)).probability

    def greedy(prompt, end):  # what greedy decoding writes next, one character at a time (mha.text.read's guesses)
        written = ""
        for _ in end:
            written += mha.text.read(MODEL, prompt + written, sorted(off)).guess[-1]
        return written

    for line, prompt, kind in [(near_lines[0], one, "As written"), (near_lines[1], exact, "An exact copy added"),
                               (moved_lines[0], here, None), (moved_lines[1], back, None)]:
        if kind:  # the whole prompt shown, its space and newline visible, and only the end it asks for
            assert line.startswith(f"{kind}, {shown(prompt)}: ")
        verb = "it writes 2xm" if greedy(prompt, "2xm") == "2xm" else "it does not write 2xm"
        assert f"{verb} (p = {p_text(p(prompt, '2xm'))} over its 3 characters)" in line
        assert "3yn" not in line and "neither" not in line
    assert near_lines[2].startswith(f"A near-duplicate added, {shown(near)}: ")
    both = "(p = {} for 2xm, {} for 3yn)".format(*pair(p(near, "2xm"), p(near, "3yn")))
    assert both in near_lines[2]
    written = greedy(near, "2xm"), greedy(near, "3yn")
    said = ("it writes 2xm" if written[0] == "2xm" else "it writes 3yn" if written[1] == "3yn"
            else "it writes neither end")
    assert said in near_lines[2]
    assert "11 characters back" in moved_lines[0]   # k7q2xm at 6 and at 17
    assert "Moved 20 characters back" in moved_lines[1]  # 'tool: k7q2xm' + 9 of filler: the copy at 6, the word at 26


def test_typical_is_the_median_over_its_fixed_random_ids_of_each_experiments_p():
    ids = lesson.typical_ids(count=5)
    assert ids == lesson.typical_ids(count=5) and all(len(i) == 6 and set(i) <= set(lesson.SWAP) for i in ids)
    got = lesson.typical(MODEL, ids)
    ones, exacts, nears = [], [], []
    for word in ids:  # recomputed from mha.text.read's probabilities, one character at a time
        end, other = word[3:], lesson.near_end(word[3:])
        for found, prompt in ((ones, f"tool: {word}\nai: {word[:3]}"), (exacts, f"tool: {word} {word}\nai: {word[:3]}"),
                              (nears, f"tool: {word} {word[:3]}{other}\nai: {word[:3]}")):
            probs = mha.text.read(MODEL, prompt + end).probabilities
            found.append(float(np.prod([probs[len(prompt) - 1 + k][MODEL.vocab.index(c)]
                                        for k, c in enumerate(end)])))
    assert got.count == 5
    assert (got.one, got.exact, got.near) == pytest.approx((np.median(ones), np.median(exacts), np.median(nears)),
                                                           rel=1e-9)
    own = other_wins = 0
    for word in ids:  # greedy decoding after the near-duplicate, from mha.text.greedy
        written = mha.text.greedy(MODEL, f"tool: {word} {word[:3]}{lesson.near_end(word[3:])}\nai: {word[:3]}", 3).text
        own += written == word[3:]
        other_wins += written == lesson.near_end(word[3:])
    assert (got.writes_own, got.writes_other) == (own, other_wins)


def test_the_typical_prose_numbers_are_typicals():
    typical = fig.typical()
    assert typical.count == lesson.TYPICAL_COUNT == len(set(lesson.typical_ids()))
    assert fig.PROSE["text-near-median"]() == f"{typical.near:.2f}"
    assert fig.PROSE["text-one-median"]() == f"{typical.one:.2f}"
    assert fig.PROSE["text-near-own"]() == str(typical.writes_own)


def test_two_probabilities_side_by_side_get_more_decimals_only_where_2_would_print_them_alike():
    assert fig.chance_pair(0.2924, 0.0712) == ("0.29", "0.07")
    assert fig.chance_pair(0.2912, 0.2948) == ("0.291", "0.295")  # 0.29 and 0.29 would read as a tie
    assert fig.chance_pair(0.29, 0.0071) == ("0.29", "0.0071")  # under 0.01: 2 significant digits
    assert fig.chance_pair(0.5, 0.5) == ("0.50", "0.50")  # a real tie stays one


# --- the prose -------------------------------------------------------------------------------------

# measure()'s shape (mha.text.measure), numbers made up here so that each one is told from the others
MEASURED = {
    "chance": 1 / 65,
    "copy": {"off": [], "trained": 0.8554, "unseen": 0.73549, "trained_characters": 1200, "unseen_characters": 1000},
    "copy_off": [{"off": [[layer, head]], "trained": 0.5, "unseen": unseen, "trained_characters": 1200,
                  "unseen_characters": 1000}
                 for (layer, head), unseen in zip(MODEL.names, (0.6, 0.055, 0.39, 0.45))],
    "scores": [{"layer": layer, "head": head, "previous_token": prev, "induction": ind}
               for (layer, head), prev, ind in zip(MODEL.names, (0.1, 0.876, 0.2, 0.3), (0.01, 0.02, 0.455, 0.5))],
    "heads": {"induction_head": [1, 1], "previous_token_heads": [[0, 1]], "pair": True},
    "composition": [],
    "bits_per_character": {"model": 3.456, "bigram": 3.789, "characters": 3999, "bigram_smoothing": "add-one"},
}


@pytest.fixture
def measured(monkeypatch):
    """The shipped model, carrying MEASURED as its measurements."""
    model = dataclasses.replace(MODEL, measurements_json=json.dumps(MEASURED))
    monkeypatch.setattr(fig, "model", lambda: model)
    return MEASURED


@pytest.fixture
def unmeasured(monkeypatch):
    model = dataclasses.replace(MODEL, measurements_json="{}")
    monkeypatch.setattr(fig, "model", lambda: model)

def test_the_prose_numbers_come_from_the_models_about_and_measurements(measured):
    about, m = MODEL.about, measured
    values = {key: make() for key, make in fig.PROSE.items()}
    assert (values["text-copy-unseen"], values["text-copy-trained"]) == ("73.5%", "85.5%")  # 73.549%, 85.54%
    assert values["text-bits"] == "3.46 bits per character to a bigram table's 3.79: only 0.33 better"
    assert values["text-params"] == f"{about['parameters']:,}"
    assert values["text-steps"] == f"{about['steps']:,}"
    assert values["text-seed"] == str(about["seed"])
    assert values["text-context"] == "32" and values["text-vocab"] == str(len(MODEL.vocab))
    assert values["text-copy-unseen"] == f"{100 * m['copy']['unseen']:.1f}%"
    assert values["text-copy-trained"] == f"{100 * m['copy']['trained']:.1f}%"
    assert values["text-chance"] == f"{100 / len(MODEL.vocab):.1f}%"
    bits = m["bits_per_character"]
    assert values["text-bits"].startswith(f"{bits['model']:.2f} bits per character")
    assert f"a bigram table's {bits['bigram']:.2f}" in values["text-bits"]
    assert values["text-default"] == DEFAULT and values["text-last"] == str(len(DEFAULT) - 1)


def test_section_10_cites_the_near_duplicate_numbers_of_the_default_text():
    _, exact, near = (prompt for _, prompt in lesson.near_duplicate_prompts(DEFAULT, MODEL.context))
    other = "3yn"
    assert fig.PROSE["text-exact-id"]() == f"{mha.text.continuation_probability(MODEL, exact, '2xm').probability:.2f}"
    for key, end in (("text-near-id", "2xm"), ("text-near-other", other)):
        p = mha.text.continuation_probability(MODEL, near, end).probability
        assert fig.PROSE[key]() == f"{p:.2f}"
    assert dom.to_html(fig.PROSE["text-near-pair"]()) == "<kbd>k7q2xm k7q3yn</kbd>"


def test_the_card_gives_each_heads_scores_and_its_cost_switched_off_alone(measured):
    m = measured
    rows = find(fig.card(), "tr")[1:]
    assert len(rows) == len(m["scores"]) == MODEL.layers * MODEL.heads
    for row, score in zip(rows, m["scores"]):
        alone = [r for r in m["copy_off"] if r["off"] == [[score["layer"], score["head"]]]][0]
        assert [text(c) for c in row[2:]] == [f"layer {score['layer']} head {score['head']}",
                                              f"{score['previous_token']:.2f}", f"{score['induction']:.2f}",
                                              f"{100 * alone['unseen']:.1f}%"]


def test_the_card_says_how_far_layer_1s_induction_falls_without_the_previous_token_head(measured):
    measured["composition"] = [{"layer": 1, "head": 0, "off": [[0, 1]], "induction": 0.0912},
                               {"layer": 1, "head": 1, "off": [[0, 1]], "induction": 0.0826}]
    model = dataclasses.replace(MODEL, measurements_json=json.dumps(measured))
    fig.model = lambda: model  # monkeypatch restores it after the test
    assert text(fig.card()).endswith("With layer 0 head 1 (its previous-token head) off, the induction scores fall: "
                                     "layer 1 head 0's from 0.46 to 0.09, layer 1 head 1's from 0.50 to 0.08.")


def test_a_worse_model_than_the_bigram_is_said_to_be_worse(measured):
    measured["bits_per_character"]["model"] = 4.0
    model = dataclasses.replace(MODEL, measurements_json=json.dumps(measured))
    fig.model = lambda: model  # monkeypatch restores it after the test
    assert fig.bits_verdict() == "4.00 bits per character, worse than a bigram table's 3.79"


def test_without_measurements_the_page_says_so_instead_of_a_number(unmeasured):
    assert fig.PROSE["text-copy-unseen"]() == fig.PROSE["text-bits"]() == "not yet measured"
    assert "not yet measured" in text(fig.card())


def test_the_build_time_figures_are_the_default_states():
    reading = fig.read(fig.default_state())
    assert dom.to_html(fig.FIGURES["fig-text-reads"].build(None, None, None)[1]) == dom.to_html(fig.reads(reading)[1])
    assert not math.isnan(reading.probability[-1])


def test_the_training_time_is_the_runs_cpu_time_not_its_wall_time():
    """The wall time swings with the machine's load (the same run: 354 s here, 1,386 s beside two more trainings);
    the CPU time of the recorded run is what the page prints: 115.4 s / 60 = 1.9 minutes."""
    about = MODEL.about
    assert about["training_cpu_seconds"] == 115.4 and about["training_seconds"] > about["training_cpu_seconds"]
    assert fig.PROSE["text-minutes"]() == "1.9 minutes of one core's time"


def test_right_guesses_top_key_and_chance_worked_by_hand():
    """The counts and picks the figure prints, from mha.text_lesson: a guess is right when it is the text's next
    character (the last position has none); a row's top key is its largest weight among keys 0..row, the first on
    a tie; chance is one in the vocabulary's size."""
    reading = dataclasses.make_dataclass("R", ["text", "guess"])(text="abab", guess=["b", "x", "b", "a"])
    assert lesson.right_guesses(reading) == [True, False, True, False]
    weights = [[1.0, 0, 0], [0.25, 0.75, 0], [0.4, 0.2, 0.4]]
    assert [lesson.top_key(weights, row) for row in range(3)] == [0, 1, 0]
    assert lesson.chance(MODEL) == 1 / 65 and fig.PROSE["text-chance"]() == "1.5%"
