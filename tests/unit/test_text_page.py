"""Section 9, heads on the reader's own prompt: the experiment's texts, the stepwise reading, the trees, the prose.

References: texts and ids worked by hand (beside each case); where the number is the model's output,
mha.text's own tested functions (read, continuation_probability, greedy), called here directly, and
numpy for the products; the measurements' numbers formatted here by hand (f-strings, and tests/printed.py's
rules), never by the page's own formatters.
"""

import math
import random
import types

import numpy as np
import pytest

import mha.text
import mha.text_lesson as lesson
from figures import text as fig
from page import dom
from printed import pair, two
from trees import class_list, find, map_cells, nodes, text

MODEL = mha.text.load()
DEFAULT = lesson.DEFAULT_PROMPT
ONE = DEFAULT[:DEFAULT.rindex("k7q2xm") + 3]  # the prompt as written, stopped after 'k7q'
SHOWN = {"\n": "\u21b5", " ": "\u2423"}


def shown(prompt):
    return "".join(SHOWN.get(c, c) for c in prompt)


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

def test_the_default_prompt_is_a_spec_a_tool_result_and_a_reply_that_repeats_the_id():
    assert DEFAULT == 'spec: answer with the id\ntool: {"id":"k7q2xm","state":"sent","items":[3,1]}\nai: sent k7q2xm'
    assert mha.text.parse_text(MODEL, DEFAULT) == DEFAULT and len(DEFAULT) <= MODEL.context


@pytest.mark.parametrize("typed, expected", [
    # the default: 'spec: answer with the id\n' is 25 characters, 'tool: {"id":"' 13 more: k7q2xm at 38; the reply's
    # copy at 91 - 6 = 85; half of 6 is 3, so the prompt stops after 'k7q'
    (DEFAULT, lesson.Id("k7q2xm", 38, 85, 3)),
    ("abc abc", lesson.Id("abc", 0, 4, 1)),            # 3 characters: the prompt keeps 'a', asks for 'bc'
    ("abcabc", None),                                  # one word: a run inside a word is no id
    ("k7q2xm k7q2", lesson.Id("k7q2xm", 0, 7, 4)),     # the text ends mid-copy: the prompt as typed, asks for 'xm'
    ("k7q2xm k7q2 then", None),                        # a prefix the text goes on past: not a copy being typed
    ("id: ab12 x ab12 y ab12", lesson.Id("ab12", 11, 18, 2)),  # three copies: the last and the nearest before it
    # the reader's own near-duplicate: the shared start 'k7q', then the two real ends (2xm, 3yn)
    ("tool: k7q2xm\nai: k7q3yn", lesson.Id("k7q2xm", 6, 17, 3, "k7q3yn")),
    ("x: k7q2xm k7q2xm y: k7q3yn", lesson.Id("k7q2xm", 10, 20, 3, "k7q3yn")),  # the longest shared start wins
    ("tool: k7q2xm\nai: k7q", lesson.Id("k7q2xm", 6, 17, 3)),  # the reply half typed: it asks for '2xm'
    ("ai: order 88kq2x. order 88kq", lesson.Id("88kq2x", 10, 24, 4)),  # the id being typed, not the repeated 'order'
    ("tool: k7q2xm\nai: k7", None),                    # under 3 characters typed: no id yet
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
    def inserted(copy):
        return ONE.replace('"k7q2xm"', f'"k7q2xm {copy}"')
    assert lesson.near_duplicate_prompts(DEFAULT, MODEL.context) == [
        ("one", ONE), ("exact", inserted("k7q2xm")), ("near", inserted("k7q3yn"))]


def test_an_id_being_typed_at_the_end_is_tested_from_the_text_as_it_stands():
    """'ai: k7q' typed after 'tool: k7q2xm': the prompts are the text as typed, then with ' k7q2xm' and ' k7q3yn'
    after the tool's copy; each asks for 2xm (and the near one for 3yn too), as the default's do."""
    typed = "tool: k7q2xm\nai: k7q"
    assert lesson.near_duplicate_prompts(typed, MODEL.context) == [
        ("one", typed), ("exact", "tool: k7q2xm k7q2xm\nai: k7q"), ("near", "tool: k7q2xm k7q3yn\nai: k7q")]
    state = fig.with_text(fig.default_state(), typed)
    (plan,) = fig.experiments(state).values()
    assert [ends for _, ends in plan.runs] == [["2xm"], ["2xm"], ["2xm", "3yn"]]


def test_a_readers_own_near_duplicate_is_tested_as_written_on_its_two_real_ends():
    typed = "tool: k7q2xm\nai: k7q9ab"
    assert lesson.near_duplicate_prompts(typed, MODEL.context) == [("yours", "tool: k7q2xm\nai: k7q")]
    trees = fig.experiment_trees(fig.with_text(fig.default_state(), typed))
    said = text(trees["fig-text-near"])
    p = {end: mha.text.continuation_probability(MODEL, "tool: k7q2xm\nai: k7q", end).probability
         for end in ("2xm", "9ab")}
    assert said.startswith("Your near-duplicate, as written, tool:\u2423k7q2xm\u21b5ai:\u2423k7q: ")
    assert "(p = {} for 2xm, {} for 9ab)".format(*pair(p["2xm"], p["9ab"])) in said
    assert "k7q k7q" not in said  # no copy inserted that would split the reader's id


@pytest.mark.parametrize("typed, sentence", [
    ("hello", "No id to test"),
    ("ab12" + " " * 118 + "ab12", "over the model's 128"),  # 126 characters: a second copy (5 more) cannot fit
])
def test_the_experiment_that_cannot_run_says_why(typed, sentence):
    with pytest.raises(ValueError, match=sentence):
        lesson.near_duplicate_prompts(typed, MODEL.context)


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

@pytest.mark.parametrize("typed", ["", "x" * 129, "caf\u00e9", "tab\there"])
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


def test_another_seed_keeps_the_text_and_a_seed_with_no_model_is_refused():
    state = fig.with_seed(fig.with_text(fig.default_state(), "abc"), 2)
    assert (state["seed"], state["text"]) == (2, "abc")
    assert fig.read(state).logits == mha.text.read(mha.text.load(2), "abc").logits
    with pytest.raises(ValueError, match="^no model was shipped for seed 3: the seeds are 0, 1, 2$"):
        fig.with_seed(state, 3)


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


def test_a_switch_or_seed_change_is_never_appended():
    old = fig.with_text(fig.default_state(), "abc")
    new = fig.with_switch(fig.with_text(old, "abcd"), (0, 1), True)
    assert fig.appended(new, old) is None and fig.with_switch(new, (0, 1), False)["off"] == frozenset()
    assert fig.appended(fig.with_seed(fig.with_text(old, "abcd"), 1), old) is None


# --- the trees -------------------------------------------------------------------------------------

def test_what_the_model_reads_shows_each_character_and_its_guess_outlined_where_the_text_agrees():
    state = fig.with_switch(fig.default_state(), (1, 1), True)
    reading = mha.text.read(MODEL, DEFAULT, [(1, 1)])
    tree = fig.reads(fig.read(state))
    rows = find(tree, "tr")
    # one column per character and one for the character after the text, which only the guess row fills
    assert [text(td) for td in rows[0][2:]] == [SHOWN.get(c, c) for c in DEFAULT] + [""]
    assert text(rows[1][2]) == ""  # nothing guesses the first character
    guesses = rows[1][3:]  # the guess for character i + 1 stands under character i + 1
    expected = [MODEL.vocab[int(np.argmax(row))] for row in reading.probabilities]
    assert [text(td) for td in guesses] == [SHOWN.get(c, c) for c in expected]
    hits = [i for i, g in enumerate(expected) if i + 1 < len(DEFAULT) and g == DEFAULT[i + 1]]
    assert [i for i, td in enumerate(guesses) if "hit" in class_list(td)] == hits
    assert f"({len(hits)} of {len(DEFAULT) - 1})" in text(tree)
    for td, row in zip(guesses, reading.probabilities):
        assert f"p = {max(row):.4f}" in td[1]["title"]


def test_each_map_outlines_the_chosen_row_names_its_weights_and_draws_an_off_head_as_off():
    """Row 17 outlined in every map, its cell (17, key) the one readable <rect>, its title the weight to 4 decimals;
    the map's data-weights the row's 18 weights as printed; an off head's figure and caption say it is off."""
    state = fig.with_chosen(fig.with_switch(fig.default_state(), (0, 1), True), 17)
    reading = mha.text.read(MODEL, DEFAULT, [(0, 1)])
    for key, want in ((None, 17), (4, 4), (30, 17)):  # None: the diagonal; a key past the row: the row's last
        tree = fig.maps(fig.read(state), state, key)
        figures = find(tree, "figure")
        assert len(figures) == MODEL.layers * MODEL.heads == 8
        for figure, (layer, head) in zip(figures, MODEL.names):
            row = reading.weights[layer][head][17]
            (svg,) = find(figure, "svg")
            (cell,) = [n for n in nodes(figure) if n[0] == "rect" and "data-q" in n[1]]
            (outline,) = find(figure, "rect", **{"class": "row-outline"})
            assert (cell[1]["data-q"], cell[1]["data-k"], cell[1]["tabindex"]) == (17, want, 0)
            assert text(cell).endswith(f"on key {want} {DEFAULT[want]!r}: {row[want]:.4f}")
            assert (outline[1]["y"], outline[1]["width"]) == (2 + 17 * 3, 18 * 3)  # the default: 3 px cells, 2 px margin
            assert svg[1]["data-weights"].split() == [f"{w:.4f}" for w in row[:18]]
            off = (layer, head) == (0, 1)
            assert ("off" in class_list(figure)) == off
            caption = text(find(figure, "figcaption")[0])
            assert ("(off, adds nothing)" in caption) == off
            top = int(np.argmax(row[:18]))  # the key it reads most (the first, on a tie)
            glyph = {" ": "\u2423", "\n": "\u21b5"}  # how a space and a newline are drawn
            assert f": reads {glyph.get(DEFAULT[top], DEFAULT[top])} at {top} ({two(row[top])})" in caption
            write = mha.text.writes(reading, 17)[layer][head]  # checked against numpy in test_text_forward
            best = max(range(len(write)), key=write.__getitem__)
            said = f", writes {glyph.get(MODEL.vocab[best], MODEL.vocab[best])} ({write[best]:+.2f})."
            assert caption.endswith(said) != off  # an off head writes nothing: its caption says no write


def test_a_typed_character_s_runs_extend_the_last_ones_and_draw_the_same_maps():
    """map_runs(reading, before) computes only the new row's runs, and the maps drawn from them are the maps drawn
    from scratch."""
    before = mha.text.read(MODEL, DEFAULT[:-1])
    after = mha.text.extend(MODEL, before, DEFAULT[-1])
    kept = fig.map_runs(after, fig.map_runs(before))
    assert kept == fig.map_runs(after)
    state = fig.with_text(fig.default_state(), DEFAULT)
    assert fig.maps(after, state, None, kept) == fig.maps(after, state)


def test_the_readout_names_the_cell_under_the_pointer():
    """cell_at reads a point back to its cell (None off the drawn triangle); readout says that cell's weight."""
    assert [fig.cell_at(x, y, 91) for x, y in ((1, 50), (3, 3), (6, 3), (2 + 3 * 4 + 1, 2 + 3 * 17 + 2))] == [
        None, (0, 0), None, (17, 4)]
    state = fig.with_switch(fig.default_state(), (1, 2), True)
    reading = fig.read(state)
    assert fig.readout(reading, state, (1, 2), 17, 4) == (
        f"layer 1 head 2 (off): query 17 {DEFAULT[17]!r} on key 4 {DEFAULT[4]!r}: "
        f"{reading.weights[1][2][17][4]:.4f}")


def test_a_short_text_s_map_has_12_px_cells_and_letters_and_a_long_one_small_cells_and_none():
    assert fig.geometry(28) == (12, 14) and fig.geometry(29) == (11, 2) and fig.geometry(91) == (3, 2)
    assert fig.geometry(128) == (2, 2)  # 340 // 128 = 2: 258 px, two maps side by side in the page's column
    short = fig.head_map([[1.0]] + [[0.5, 0.5]], "ab", "h", 1, False)
    long = fig.head_map(fig.read(fig.default_state()).weights[0][0], DEFAULT, "h", 3, False)
    assert [n for n in nodes(short) if n[0] == "text"] and not [n for n in nodes(long) if n[0] == "text"]
    assert long[1]["width"] == 2 + 91 * 3


def test_a_click_picks_the_row_under_it():
    # a short text: rows under the 14 px axis margin, 12 px tall: y = 14..25 is row 0, 218..229 row 17
    assert [fig.row_at(y, 20) for y in (3, 13.9, 14, 25.9, 26, 223)] == [None, None, 0, 0, 1, 17]
    # the default (91 characters): a 2 px margin, 3 px rows
    assert [fig.row_at(y, 91) for y in (1, 2, 4.9, 5, 272)] == [None, 0, 0, 1, 90]


@pytest.mark.parametrize("typed", ["abc abc xyz", DEFAULT], ids=["short", "the default"])
def test_the_map_draws_each_cell_once_in_its_weights_bucket(typed):
    """Every cell j <= i of every row is drawn in its weight's bucket (the ground, a path's run, or the chosen
    cell's own <rect>), none twice, none above the diagonal (trees.map_cells checks both)."""
    rows = fig.read(fig.with_text(fig.default_state(), typed)).weights[1][1]
    svg = fig.head_map(rows, typed, "layer 1 head 1", 5, False)
    assert map_cells(svg) == {(i, j): f"w{min(9, int(rows[i][j] * 10))}" for i in range(len(typed)) for j in range(i + 1)}


def test_the_switches_are_one_checkbox_per_head_checked_when_off_and_the_seeds_one_radio_each():
    boxes = find(fig.switches(frozenset({(1, 0)})), "input")
    assert [b[1]["data-text-head"] for b in boxes] == ["0.0", "0.1", "0.2", "0.3", "1.0", "1.1", "1.2", "1.3"]
    assert [b[1]["checked"] for b in boxes] == [False] * 4 + [True] + [False] * 3
    radios = find(fig.seed_picker(1), "input")
    assert [(r[1]["type"], r[1]["name"], r[1]["value"], r[1]["checked"]) for r in radios] == [
        ("radio", "text-seed", "0", False), ("radio", "text-seed", "1", True), ("radio", "text-seed", "2", False)]


@pytest.mark.parametrize("seed, off", [(0, frozenset()), (0, frozenset({(0, 1)})), (1, frozenset({(1, 0)}))])
def test_the_experiment_s_sentences_print_mha_texts_probabilities(seed, off):
    state = {**fig.default_state(), "seed": seed, "off": off}
    model = mha.text.load(seed)
    lines = [text(line) for line in fig.experiment_trees(state)["fig-text-near"]]
    one, exact, near = (prompt for _, prompt in lesson.near_duplicate_prompts(DEFAULT, MODEL.context))

    def p(prompt, end):
        return mha.text.continuation_probability(model, prompt, end, sorted(off)).probability

    def greedy(prompt, end):
        return mha.text.greedy(model, prompt, len(end), sorted(off)).text

    for line, prompt, kind in [(lines[0], one, "As written"), (lines[1], exact, "An exact copy added")]:
        assert line.startswith(f"{kind}, {shown(prompt)}: ")  # the whole prompt, its space and newline visible
        verb = "it writes 2xm" if greedy(prompt, "2xm") == "2xm" else "it does not write 2xm"
        assert f"{verb} (p = {two(p(prompt, '2xm'))} over its 3 characters)" in line
    assert lines[2].startswith(f"A near-duplicate added, {shown(near)}: ")
    assert "(p = {} for 2xm, {} for 3yn)".format(*pair(p(near, "2xm"), p(near, "3yn"))) in lines[2]
    said = ("it writes 2xm" if greedy(near, "2xm") == "2xm" else "it writes 3yn" if greedy(near, "3yn") == "3yn"
            else "it writes neither end")
    assert said in lines[2]


def test_typical_is_the_median_over_its_fixed_random_ids_of_each_experiments_p():
    """Each insertion after the id's first copy (itself, a near-duplicate, an unrelated word: the control, drawn
    from random.Random(1) until its first 3 differ), its median p and, paired with the prompt as written, how many
    ids it lowers p for; and how many ids greedy decoding writes whole, as written and beside a near-duplicate."""
    ids = lesson.typical_ids(count=3)
    assert ids == lesson.typical_ids(count=3) and all(len(i) == 6 and set(i) <= set(lesson.SWAP) for i in ids)
    got = lesson.typical(MODEL, ids)
    draw = random.Random(1)
    ps, own, other_wins, alone = {"one": [], "exact": [], "near": [], "unrelated": []}, 0, 0, 0
    for word in ids:  # recomputed from mha.text.read's probabilities, one character at a time
        end, other = word[3:], lesson.near_end(word[3:])
        unrelated = "".join(draw.choice(lesson.SWAP) for _ in word)
        while unrelated[:3] == word[:3]:
            unrelated = "".join(draw.choice(lesson.SWAP) for _ in word)
        text = DEFAULT.replace("k7q2xm", word)
        prompts = {"one": text[:-3], "exact": text.replace(f'"{word}"', f'"{word} {word}"')[:-3],
                   "near": text.replace(f'"{word}"', f'"{word} {word[:3] + other}"')[:-3],
                   "unrelated": text.replace(f'"{word}"', f'"{word} {unrelated}"')[:-3]}
        for kind, prompt in prompts.items():
            probs = mha.text.read(MODEL, prompt + end).probabilities
            ps[kind].append(float(np.prod([probs[len(prompt) - 1 + k][MODEL.vocab.index(c)]
                                           for k, c in enumerate(end)])))
        written = mha.text.greedy(MODEL, prompts["near"], 3).text
        own += written == end
        other_wins += written == other
        alone += mha.text.greedy(MODEL, prompts["one"], 3).text == end
    assert got.count == 3
    assert (got.one, got.exact, got.near, got.unrelated) == pytest.approx(
        tuple(np.median(ps[kind]) for kind in ("one", "exact", "near", "unrelated")), rel=1e-9)
    lowers = {kind: sum(a < b for a, b in zip(ps[kind], ps["one"])) for kind in ("exact", "near", "unrelated")}
    assert (got.exact_lowers, got.near_lowers, got.unrelated_lowers) == (lowers["exact"], lowers["near"],
                                                                         lowers["unrelated"])
    assert (got.writes_own, got.writes_other, got.writes_alone) == (own, other_wins, alone)
    assert got.writes_neither == 3 - own - other_wins


def test_two_probabilities_side_by_side_get_more_decimals_only_where_2_would_print_them_alike():
    for a, b, expected in [(0.2924, 0.0712, ("0.29", "0.07")),
                           (0.2912, 0.2948, ("0.291", "0.295")),  # 0.29 and 0.29 would read as a tie
                           (0.29, 0.0071, ("0.29", "0.0071")),  # under 0.01: 2 significant digits
                           (0.5, 0.5, ("0.50", "0.50")),  # a real tie stays one
                           (0.82, 0.0000017, ("0.82", "under 0.001"))]:  # not 0.0000017 beside 0.82
        assert fig.chance_pair(a, b) == pair(a, b) == expected


def test_a_probability_under_a_thousandth_is_said_as_under_it_not_by_its_zeros():
    trial = types.SimpleNamespace(probabilities={"2xm": 0.0000017}, copied=None)
    assert fig.outcome(trial, None) == "it does not write 2xm (p under 0.001 over its 3 characters)"
    found = types.SimpleNamespace(end="2xm", near_end="3yn")
    trial = types.SimpleNamespace(probabilities={"2xm": 0.00004, "3yn": 0.8}, copied="3yn")
    assert fig.outcome(trial, found) == ("it writes 3yn, the near-duplicate's end "
                                         "(p under 0.001 for 2xm, 0.80 for 3yn)")


# --- the prose and the cards, from each seed's measurements ------------------------------------------

SEEDS = mha.text.SEEDS
MEASURED = {seed: mha.text.load(seed).measurements for seed in SEEDS}
NAMES = {"previous_token": "previous character", "same_character": "same character",
         "word_start": "start of the word", "bracket": "open quote or bracket", "induction": "induction"}


def test_the_prose_numbers_come_from_the_models_about_and_measurements():
    values = {key: make() for key, make in fig.PROSE.items()}
    about = MODEL.about
    assert values["text-params"] == f"{about['parameters']:,}" and about["steps"] == 20_000
    assert values["text-context"] == "128" and values["text-seeds"] == "0, 1 and 2"
    assert values["text-shape"] == "2 layers of 4 heads, width 64"
    unseen = sorted(MEASURED[s]["tasks"][0]["unseen"] for s in SEEDS)
    assert values["text-copy-unseen"] == f"{100 * unseen[0]:.1f}-{100 * unseen[-1]:.1f}%"
    alone = sorted(next(t["unseen"] for t in MEASURED[s]["tasks"] if t["off"] == MEASURED[s]["previous_token_heads"])
                   for s in SEEDS)  # every previous-token head of the seed off together: at least halves copying
    assert alone[-1] <= unseen[0] / 2
    assert values["text-copy-no-previous"] == f"{100 * alone[0]:.1f}-{100 * alone[-1]:.1f}%"
    bits = sorted(MEASURED[s]["bits_per_character"]["model"] for s in SEEDS)
    bigram = MEASURED[0]["bits_per_character"]["bigram"]
    assert all(MEASURED[s]["bits_per_character"]["bigram"] == bigram for s in SEEDS)  # one text, one table
    assert values["text-bits"] == f"{bits[0]:.2f}-{bits[-1]:.2f} bits per character to a bigram table's {bigram:.2f}"
    assert values["text-chance"] == "1.5%" and values["text-role-min"] == "0.1" and values["text-role-lift"] == "4"
    assert values["text-default"] == DEFAULT and values["text-last"] == str(len(DEFAULT) - 1)
    t = MEASURED[0]["typical"]
    assert values["text-alone"] == f"{t['writes_alone']} of {t['count']}" and values["text-head-width"] == "16"
    # 8,000 steps of copies alone, 4,000 at 60% copies, 8,000 at 40%: 13,600 of 20,000 batches of 16
    assert values["text-copy-share"] == "68.0%"
    said = values["text-typical"]
    assert f"median p of the earlier copy's end is {t['one']:.2f};" in said
    for kind, name in (("exact", "an exact copy"), ("unrelated", "an unrelated id"), ("near", "a near-duplicate")):
        verb = "raises" if t[kind] > t["one"] else "lowers"
        assert f"{name} {verb} it to {t[kind]:.2f} ({t[kind + '_lowers']} of 60 lower)" in said
    neither = 60 - t["writes_own"] - t["writes_other"]
    assert said.endswith(f"the earlier end for {t['writes_own']} ids, the later for {t['writes_other']}, neither for "
                         f"{neither}.")
    later = [MEASURED[s]["typical"]["writes_other"] for s in SEEDS]
    earlier = [MEASURED[s]["typical"]["writes_own"] for s in SEEDS]
    assert all(a > b for a, b in zip(later, earlier))  # the shipped models: the later twin wins, every seed
    assert values["text-twins"] == (f"the later one wins more often ({later[0]}, {later[1]}, "
                                    f"{later[2]} of 60 ids against {earlier[0]}, {earlier[1]}, {earlier[2]}, "
                                    f"seeds 0-2)")


def test_the_recipe_is_said_stage_by_stage():
    stages = [{"context": 32, "steps": 8000, "mix": [1, 0, 0, 0]}, {"context": 64, "steps": 4000, "mix": [.6, .2, .1, .1]},
              {"context": 128, "steps": 8000, "mix": [.4, .25, .1, .25]}]
    assert fig.recipe(stages) == ("8,000 steps at 32 characters of repeated random strings, then 4,000 at 64 and "
                                  "8,000 at 128 with 60% and 40% of those")
    assert fig.PROSE["text-recipe"]() == fig.recipe(MODEL.about["corpus"]["stages"])


def test_the_roles_sentence_rests_on_induction_sitting_on_other_heads_in_other_seeds():
    holders = {}
    for seed in SEEDS:
        for layer, head, role in MEASURED[seed]["roles"]:
            if role == "induction":
                holders.setdefault(seed, []).append(f"{layer}.{head}")
    # these models, read off the files: 1.0, 1.2, 1.3 / 1.1, 1.2, 1.3 / 1.0, 1.1, 1.2
    assert holders == {0: ["1.0", "1.2", "1.3"], 1: ["1.1", "1.2", "1.3"], 2: ["1.0", "1.1", "1.2"]}
    assert fig.moving_role() == "induction"
    assert fig.PROSE["text-moves"]() == "The roles move between seeds (the table)"  # the roles table shows where


def near_the_line(x, line=0.1):
    """A score to 2 decimals, or 3 (4) where 2 (3) would print it on the line's other side or as the line itself:
    seed 0's layer 1 head 0 scores 0.0975 same-character, which '0.10' would show as reaching ROLE_MIN."""
    for digits in (2, 3, 4):
        said = f"{x:.{digits}f}"
        if (float(said) >= line) == (x >= line) and (float(said) != line or x == line):
            return said
    raise AssertionError(x)


def test_the_card_gives_each_heads_probe_scores_its_role_in_bold_and_costs_switched_off_alone():
    for seed in SEEDS:
        m = MEASURED[seed]
        rows = find(fig.card(seed), "tr")[1:]
        assert len(rows) == len(m["scores"]) == 8
        base = m["tasks"][0]
        for row, score, (layer, head, role) in zip(rows, m["scores"], m["roles"]):
            alone = next(t for t in m["tasks"] if t["off"] == [[layer, head]])
            costs = [f"{1 - alone[k] / base[k]:.0%}" for k in ("unseen", "close")]
            assert [text(c) for c in row[2:]] == [f"layer {layer} head {head}",
                                                  *[near_the_line(score[p]) for p in mha.text.PROBES], *costs]
            bold = [p for p, c in zip(mha.text.PROBES, row[3:]) if find(c, "strong")]
            assert bold == ([role] if role else [])  # the role's score in bold, and only it
        assert text(find(fig.card(seed), "caption")[0]).startswith(f"Seed {seed}: ")
    assert near_the_line(0.0975) == "0.098" and near_the_line(0.10020) == "0.1002" and near_the_line(0.2078) == "0.21"


def test_the_roles_table_shows_each_head_s_role_in_each_seed():
    rows = find(fig.roles_table(), "tr")[1:]
    for index, row in enumerate(rows):
        cells = [text(c) for c in row[3:]]
        for seed, cell in zip(SEEDS, cells):
            layer, head, role = MEASURED[seed]["roles"][index]
            assert cell == (f"{NAMES[role]} {near_the_line(MEASURED[seed]['scores'][index][role])}" if role else "none")


def test_each_seed_s_dissociation_is_said_or_its_absence():
    tree = fig.dissociations()
    if not any(MEASURED[seed]["dissociation"] for seed in SEEDS):
        costly = [(seed, t) for seed in SEEDS for t in MEASURED[seed]["tasks"][1:] if len(t["off"]) == 1
                  and 1 - t["unseen"] / MEASURED[seed]["tasks"][0]["unseen"] >= 0.5]
        assert costly  # the previous-token heads at least
        closing = [1 - t["close"] / MEASURED[seed]["tasks"][0]["close"] for seed, t in costly]
        previous = all(t["off"][0] in MEASURED[seed]["previous_token_heads"] for seed, t in costly)
        # these models: the heads that halve copying are exactly layer 0's previous-character ones, at 29-79% closing
        assert previous and round(min(closing), 2) == 0.29
        definition = ("A double dissociation would show two jobs apart: one head whose switch halves copying an id "
                      "but costs closing a quote or bracket under a tenth, another the reverse.")
        assert text(tree) == definition + (" No seed has one: each head whose switch halves copying is a layer-0 "
                                           f"previous-character head, and costs closing {min(closing):.0%} or more.")
        return
    for seed, line in zip(SEEDS, [text(li) for li in find(tree, "li")]):
        found = MEASURED[seed]["dissociation"]
        if found is None:
            assert line.startswith(f"Seed {seed}: no double dissociation")
        else:
            a, b = found["copy_head"], found["close_head"]
            assert line == (f"Seed {seed}: layer {a[0]} head {a[1]} off costs copying {found['copy_costs'][0]:.0%} "
                            f"and closing {found['copy_costs'][1]:.0%}; layer {b[0]} head {b[1]} off costs closing "
                            f"{found['close_costs'][1]:.0%} and copying {found['close_costs'][0]:.0%}.")


def test_section_10_s_plot_and_sentence_are_the_competition_measurements():
    c = [MEASURED[seed]["competition"] for seed in SEEDS]

    def three(kind, at):
        values = [two(x[kind][at]) for x in c]
        return f"{values[0]}, {values[1]} and {values[2]}"
    assert fig.competition_sentence() == (f"falls from {three('near', 0)} (seeds 0, 1, 2) to {three('near', -1)} after "
                                          f"8 near-duplicate lines, and to {three('unrelated', -1)} after 8 unrelated ones")
    tree = fig.competition_plot()
    lines = [n for n in nodes(tree) if n[0] == "polyline"]
    assert [(n[1]["data-seed"], n[1]["class"]) for n in lines] == [
        (str(s), f"text-line {k}") for s in SEEDS for k in ("near", "unrelated")]
    for line, (seed, kind) in zip(lines, [(s, k) for s in SEEDS for k in ("near", "unrelated")]):
        ys = [float(point.split(",")[1]) for point in line[1]["points"].split()]
        values = MEASURED[seed]["competition"][kind]
        # log scale: y = 12 + (220 - 38 - 12) * log10(p) / -4, p held within 1e-4..1
        assert ys == [round(12 + 170 * min(max(math.log10(v), -4), 0) / -4, 1) for v in values]
    assert all(text(n) for n in nodes(tree) if n[0] == "text")


def test_the_build_time_figures_are_the_default_states():
    reading = fig.read(fig.default_state())
    assert dom.to_html(fig.FIGURES["fig-text-reads"].build(None, None, None)[1]) == dom.to_html(fig.reads(reading)[1])
    assert not math.isnan(reading.probability[-1])


def test_the_training_time_is_the_longest_run_s_cpu_time_not_its_wall_time():
    """The wall time swings with the machine's load; the page prints the CPU time of the slowest seed's run."""
    seconds = max(mha.text.load(s).about["training_cpu_seconds"] for s in SEEDS)
    assert seconds <= 15 * 60  # issue 43: at most 15 minutes a model
    assert fig.PROSE["text-minutes"]() == f"{seconds / 60:.1f} minutes"


def test_right_guesses_top_key_and_chance_worked_by_hand():
    """The counts and picks the figure prints, from mha.text_lesson: a guess is right when it is the text's next
    character (the last position has none); a row's top key is its largest weight among keys 0..row, the first on
    a tie; chance is one in the vocabulary's size."""
    import dataclasses
    reading = dataclasses.make_dataclass("R", ["text", "guess"], namespace={
        "guess_at": lambda self, i: (self.guess[i], 0.5)})(text="abab", guess=["b", "x", "b", "a"])
    assert lesson.right_guesses(reading) == [True, False, True, False]
    assert lesson.right_guesses(reading, 2) == [True, False]  # from position 2 on
    weights = [[1.0, 0, 0], [0.25, 0.75, 0], [0.4, 0.2, 0.4]]
    assert [lesson.top_key(weights, row) for row in range(3)] == [0, 1, 0]
    assert lesson.chance(MODEL) == 1 / 65


def test_a_typed_character_s_guesses_extend_the_last_ones_and_the_last_guess_is_judged_again():
    """read_cells(reading, before) keeps before's cells but its last (whose next character was not typed yet) and
    draws the same table as from scratch; the default's last guess ('\\n' after '"'?) is judged by what is typed."""
    before = mha.text.read(MODEL, DEFAULT[:-1])
    after = mha.text.extend(MODEL, before, DEFAULT[-1])
    kept = fig.read_cells(after, fig.read_cells(before))
    assert kept == fig.read_cells(after) and fig.reads(after, kept) == fig.reads(after)
    guess = before.guess[-1]
    assert "hit" not in fig.read_cells(before)[-1][1][1].get("class", "")  # nothing typed after it yet
    assert ("hit" in kept[len(DEFAULT) - 2][1][1].get("class", "")) == (guess == DEFAULT[-1])


def test_a_space_and_a_newline_on_a_map_s_axes_are_marked_not_letters():
    """'a b\\nc': the axes' characters in order, the space's and the newline's glyphs each in a <tspan class=blank>
    (drawn in the accent colour), the letters bare."""
    svg = fig.head_map(fig.read(fig.with_text(fig.default_state(), "a b\nc")).weights[0][0], "a b\nc", "h", 4, False)
    for axis in find(svg, "text"):
        assert text(axis) == "a\u2423b\u21b5c"
        assert [text(t) for t in find(axis, "tspan", **{"class": "blank"})] == ["\u2423", "\u21b5"]


def test_beside_the_field_its_length_and_the_experiments_longest_prompt_are_said():
    context = MODEL.context
    # 91 characters; the exact repeat's prompt stops after the reply's 'k7q' (88) and holds ' k7q2xm' (7) more,
    # then asks for 2xm (3): 98
    assert fig.room(DEFAULT) == f"91 of {context} characters; the experiment adds a space and a second k7q2xm: 98."
    assert fig.room("tool: k7q2xm\nai: k7q3yn") == f"23 of {context} characters."  # the reader's own: as written
    assert fig.room("hello") == f"5 of {context} characters."
    assert fig.room("x" * 3000, readable=False) == f"3,000 of {context} characters."
    assert fig.tail_offer("x" * (context + 1)) == f"Read its last {context} characters"
    assert fig.tail_offer("x" * context) == ""


def test_the_later_twin_wins_only_when_every_seed_says_so():
    """Counts made up: (later, earlier) per seed. Later ahead in all: True; behind in all: False; mixed or a tie: None."""
    def made(pairs):
        return [lesson.Typical(60, 0.5, 0.5, 0.5, earlier, later, 0.5, 0, 0, 0, 0) for later, earlier in pairs]
    assert lesson.later_twin_wins(made([(25, 10), (30, 14)])) is True
    assert lesson.later_twin_wins(made([(5, 10), (3, 14)])) is False
    assert lesson.later_twin_wins(made([(25, 10), (3, 14)])) is None
    assert lesson.later_twin_wins(made([(10, 10)])) is None


def test_the_copy_share_weighs_each_stage_by_its_steps():
    """8,000 steps of copies alone, 4,000 at 60%, 8,000 at 40%: (8,000 + 2,400 + 3,200) / 20,000 = 0.68."""
    stages = [{"steps": 8000, "mix": [1.0]}, {"steps": 4000, "mix": [0.6, 0.4]}, {"steps": 8000, "mix": [0.4, 0.6]}]
    assert lesson.copy_share(stages) == pytest.approx(0.68)


def test_the_experiments_inputs_stay_for_a_key_typed_after_the_id_and_move_with_the_prompt_the_model_or_a_head():
    """experiment_inputs says when the experiments on screen are a new state's too (app/text.py then runs none):
    " ok" after the id leaves every prompt, continuation and word, and the experiment drawn from scratch is the
    same; the id's first three characters typed at the end (the text as it stands becomes the prompt), another
    seed and a head off each draw another experiment, and their inputs differ."""
    state = fig.default_state()

    def inputs(s):
        return fig.experiment_inputs(s, fig.experiments(s))

    trees = fig.experiment_trees(state)
    assert inputs(fig.with_text(state, DEFAULT + " ok")) == inputs(state)
    assert fig.experiment_trees(fig.with_text(state, DEFAULT + " ok")) == trees
    for other in (fig.with_text(state, DEFAULT + " ok k7q"), fig.with_seed(state, 1),
                  fig.with_switch(state, (1, 0), True)):
        assert fig.experiment_trees(other) != trees and inputs(other) != inputs(state)
