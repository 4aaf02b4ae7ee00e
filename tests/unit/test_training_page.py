"""The trained model's section: its trees, its state transitions, its parse functions, its worker, its prose.

References: hand-built attention patterns (the heatmap's cells), hand-worked counts and sums
(written beside each case), and mha.training itself run here on the checkpoints' own rounded
params, which is what the page's Python runs in the browser.
"""

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import mha.training as training
from figures import training as fig
from page import dom
from training import state as st
from training import worker
from prose_count import section_html, visible_words
from trees import map_cells, nodes, text

# figures.prose() and run_data() read section 8's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

ROOT = Path(__file__).resolve().parents[2]
SECTION = (ROOT / "site" / "sections" / "trained.html").read_text()

# --- test data ---------------------------------------------------------------

GOOD_SEQUENCES = [  # (typed, tokens)
    ("BECAFDBCAFDB", [1, 4, 2, 0, 5, 3, 1, 2, 0, 5, 3, 1]),
    ("a b, c", [0, 1, 2]),          # any case; spaces and commas ignored
    ("F", [5]),                     # one token is a sequence
]
BAD_SEQUENCES = [  # (typed, words of the sentence)
    ("", "is empty"),
    ("  , ", "is empty"),
    ("ABG", "'G' (letter 3) is not one of the model's tokens"),
    ("AB1", "'1' (letter 3)"),
    ("ABCDEFABCDEFA", "13 letters is too many: the model reads at most 12"),
]
BAD_SEEDS = [("", "is not a whole number"), ("x", "is not a whole number"), ("-1", "between 0 and 999,999"),
             ("1000000", "between 0 and 999,999"), ("1.5", "is not a whole number")]


@pytest.fixture(scope="module")
def run():
    return fig.run_data()


@pytest.fixture(scope="module")
def final(run):
    return run["checkpoints"][-1]


# --- parsing what a reader types -------------------------------------------------

@pytest.mark.parametrize("typed, tokens", GOOD_SEQUENCES)
def test_a_sequence_of_letters_becomes_tokens(typed, tokens):
    assert fig.parse_sequence(typed) == tokens
    assert fig.letters(tokens) == typed.upper().replace(" ", "").replace(",", "")


@pytest.mark.parametrize("typed, words", BAD_SEQUENCES)
def test_a_bad_sequence_is_refused_with_a_sentence(typed, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        fig.parse_sequence(typed)


@pytest.mark.parametrize("typed, words", BAD_SEEDS)
def test_a_bad_seed_is_refused_with_a_sentence(typed, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        fig.parse_seed(typed)


def test_a_good_seed_is_read():
    assert fig.parse_seed(" 42 ") == 42 and fig.parse_seed("0") == 0


# --- the state's transitions --------------------------------------------------------

def test_the_default_state_probes_the_last_checkpoint_on_the_sample():
    state = st.default_state(20)
    assert state["checkpoint"] == 19 and state["source"] == "checkpoint"
    assert fig.letters(state["tokens"]) == fig.SAMPLE and state["off"] == frozenset()


def test_the_slider_chooses_a_checkpoint_and_refuses_one_that_does_not_exist():
    state = st.with_trained(st.default_state(20), 3, 400, {"p": 1})
    moved = st.with_checkpoint(state, "4", 20)
    assert moved["checkpoint"] == 4 and moved["source"] == "checkpoint" and moved["trained"] == state["trained"]
    for index in (-1, 20):
        with pytest.raises(ValueError, match="does not exist"):
            st.with_checkpoint(state, index, 20)


def test_a_bad_sequence_leaves_the_state_as_it_was():
    state = st.default_state()
    with pytest.raises(ValueError):
        st.with_sequence(state, "XYZ")
    assert st.with_sequence(state, "abc")["tokens"] == (0, 1, 2)
    assert fig.letters(state["tokens"]) == fig.SAMPLE  # transitions return a new dict


def test_switches_add_and_remove_heads():
    state = st.with_switch(st.default_state(), [1, 0], True)
    assert state["off"] == {(1, 0)}
    state = st.with_switch(st.with_switch(state, (0, 0), True), (1, 0), False)
    assert state["off"] == {(0, 0)}


def test_a_trained_model_is_shown_until_reset(run):
    params = training.params_from_checkpoint(run["checkpoints"][0])
    state = st.with_trained(st.default_state(), 7, 40, params)
    shown, measured, name = st.model(state, run)
    assert shown is params and measured is None and name == "your run (seed 7, 40 steps)"
    assert "measured when training ends" in text(st.scores_trees(state, run)[0])
    back = st.with_reset(state)
    assert back["trained"] is None and st.model(back, run)[2] == "the build-time run"
    assert st.model(st.with_checkpoint(back, 2, fig.COUNT), run)[2] == \
        f"the build-time run at step {run['checkpoints'][2]['step']}"


# --- trees ----------------------------------------------------------------------------

def test_a_heatmap_has_one_cell_per_unmasked_weight_in_its_bucket():
    """A hand-built 3-token pattern: row 0 = [1]; row 1 = [0.25, 0.75]; row 2 = [0.05, 0.5, 0.45].
    Its cells are the 1 + 2 + 3 = 6 on or below the diagonal, bucketed by tenths: w9 (1.0 caps at w9),
    w2, w7, w0, w5, w4. Nothing above the diagonal is drawn (the causal mask). Three tokens get the square of
    twelve: 14 px of margin + 12 x 12 px = 158 px, so a cell is (158 - 14) // 3 = 48 px, drawn at 1:1."""
    weights = [[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.05, 0.5, 0.45]]
    svg = fig.heatmap(weights, [0, 1, 2], "a hand-built head")
    dom.check(svg)
    assert (svg[1]["width"], svg[1]["height"], svg[1]["viewBox"]) == (158, 158, "0 0 158 158")
    assert map_cells(svg) == {(0, 0): "w9", (1, 0): "w2", (1, 1): "w7", (2, 0): "w0", (2, 1): "w5", (2, 2): "w4"}
    top, left = [t for t in nodes(svg) if t[0] == "text"]  # one letter per x (top) or per y (left)
    assert text(top) == text(left) == "ABC"
    assert top[1]["x"] == "38 86 134" and left[1]["y"] == "42 90 138"  # centres 14 + 48 j + 24; 14 + 48 i + 28


def test_the_loss_curve_runs_from_the_first_step_to_the_last_loss():
    """Losses [2.0, 1.0, 0.0] over a run of 4 steps, one point per step (a short run needs no thinning):
    x = 26 + 270 * step / 4, y = 76 - 72 * loss / 2.5 -> (93.5, 18.4), (161, 47.2), (228.5, 76)."""
    svg = fig.loss_curve([2.0, 1.0, 0.0], 4)
    dom.check(svg)
    line = next(n for n in nodes(svg) if n[0] == "polyline")
    assert line[1]["points"] == "93.5,18.4 161.0,47.2 228.5,76.0"
    assert svg[1]["aria-label"] == "batch loss over 3 of 4 steps, now 0.000"


def test_a_long_run_is_thinned_to_at_most_200_points_ending_at_the_last_loss():
    """800 steps: every 4th step (800 // 200), steps 4, 8, ..., 800; 801 steps: the same, plus step 801."""
    for steps, count in ((800, 200), (801, 201)):
        line = next(n for n in nodes(fig.loss_curve([1.0] * steps, steps)) if n[0] == "polyline")
        assert len(line[1]["points"].split()) == count and line[1]["points"].split()[-1] == "296.0,47.2"


def all_frames(run, chosen):
    """Every checkpoint's frame, all hidden but the chosen one: what the page and the frames file hold together."""
    return [fig.checkpoint_frame(run, i, hidden=i != chosen) for i in range(len(run["checkpoints"]))]


def test_every_checkpoint_has_a_frame_and_only_the_chosen_one_shows(run):
    frames = all_frames(run, 19)
    assert [f[1]["data-frame"] for f in frames] == list(range(fig.COUNT))
    assert [f[1]["hidden"] for f in frames] == [True] * 19 + [False]
    for f, c in zip(frames, run["checkpoints"]):
        dom.check(f)
        assert text(f).startswith(f"Step {c['step']} of {run['steps']}: batch loss {run['losses'][c['step'] - 1]:.3f}")
        assert f[1]["data-label"] == f"step {c['step']} of {run['steps']}"


def test_the_frames_draw_each_heads_pattern_on_the_sample_from_the_checkpoints_params(run):
    c = run["checkpoints"][10]
    tokens = fig.parse_sequence(fig.SAMPLE)
    weights = training.predict(training.params_from_checkpoint(c), tokens)["weights"]
    maps = [n for n in nodes(all_frames(run, 10)[10]) if n[0] == "svg" and "train-map" in n[1]["class"]]
    heads = [weights[layer][head] for layer, head in fig.head_names(c["params"])]
    assert len(maps) == len(heads)
    for svg, rows in zip(maps, heads):
        assert map_cells(svg) == {(i, j): dom.weight_class(rows[i][j]) for i in range(12) for j in range(i + 1)}


def test_the_slider_is_labelled_and_names_its_step(run):
    label, slider, output = fig.slider(run, 19)
    assert label[1]["for"] == slider[1]["id"] == "train-step" and slider[1]["type"] == "range"
    assert (slider[1]["min"], slider[1]["max"], slider[1]["value"]) == (0, 19, 19)
    assert slider[1]["aria-valuetext"] == text(output) == f"step {run['steps']} of {run['steps']}"


def test_the_slider_names_every_checkpoints_step_for_frames_not_drawn_yet(run):
    """boot.js reads the i-th label of data-labels (split at |) when the slider moves to i: 800 steps,
    20 checkpoints, every 40 steps, so label 1 is "step 80 of 800"; each matches its frame's data-label."""
    labels = fig.slider(run, 19)[1][1]["data-labels"].split("|")
    assert len(labels) == fig.COUNT and labels[1] == f"step {2 * run['steps'] // fig.COUNT} of {run['steps']}"
    assert labels == [f[1]["data-label"] for f in all_frames(run, 19)]


def test_the_probe_shows_predict_and_outlines_the_guesses_the_next_letter_confirms(run, final):
    params = training.params_from_checkpoint(final)
    tokens = fig.parse_sequence("BECAFDBCAFDB")
    guesses = training.predict(params, tokens)["predictions"]
    trees = fig.probe(params, tokens, "m")
    cells = [n for n in nodes(trees[-1]) if n[0] == "td" and "guess" in n[1].get("class", "")]
    assert [text(c) for c in cells] == [fig.LETTERS[g] for g in guesses]
    hits = [i for i, c in enumerate(cells) if "hit" in c[1]["class"]]
    assert hits == [i for i in range(11) if guesses[i] == tokens[i + 1]]
    assert set(range(7, 11)) <= set(hits)  # the second copy's pinned positions, 12 - 5 .. 10, all right


def test_the_scores_table_reads_the_ablation_of_the_heads_switched_off(final):
    names = fig.head_names(final["params"])
    for off in ({}, *({name} for name in names), set(names)):
        mask = fig.mask_of(names, off)  # bit i for names[i]: (0, 0) -> 1, (1, 0) -> 2 with one head a layer
        table, line, _ = fig.scores_table(final, names, set(off), "m")
        assert fig.percent(final["ablated"][mask]) in text(line)
        rows = [[text(c) for c in r[3:]] for r in table[4][2:]]
        # the last column: that head off as well as the switched-off ones (a dash for a head already off)
        # a head switched off adds nothing: its row is dashes, marked off, not its own weights' scores
        assert rows == [["\u2014"] * 3 if names[i] in off else
                        [f"{s[0]:.2f}", f"{s[1]:.2f}", fig.percent(final["ablated"][mask | 1 << i])]
                        for i, s in enumerate(final["scores_off"][mask])]
        assert [r[1].get("class") for r in table[4][2:]] == ["off" if n in off else None for n in names]
    assert fig.mask_of(names, {names[0]}) == 1 and fig.mask_of(names, set(names)) == 2 ** len(names) - 1


# --- the build-time run: mha.training's own numbers -----------------------------------------

def test_the_run_keeps_every_loss_and_evenly_spaced_checkpoints(run):
    assert run["steps"] == training.STEPS and len(run["losses"]) == run["steps"]
    gap = run["steps"] // fig.COUNT  # 800 steps, 20 checkpoints: every 40 steps
    assert [c["step"] for c in run["checkpoints"]] == [gap * (i + 1) for i in range(fig.COUNT)]


def test_the_final_checkpoints_measurements_are_mha_trainings(final):
    params = training.params_from_checkpoint(final)
    assert final["ablated"][0] == training.accuracy(params)  # kept unrounded: rounded once, at the print
    assert final["ablated"][2] == training.accuracy(params, ablate={fig.head_names(params)[1]})
    scores = training.head_scores(params)
    assert final["scores"] == [[s["previous_token"], s["induction"]] for s in scores]


def test_the_page_data_is_small_json_that_turns_back_into_params(run):
    text_ = fig.files()["training.json"]
    back = json.loads(text_)
    # 200 kB was the budget for 1,404 params a checkpoint; it grows with the heads (2,700 for (2, 2)). The seed
    # figure's 100 rows ride along (the page rings the reader's run among them): about 20 kB more, held apart.
    seeds_rows = len(json.dumps(back.pop("seeds"), separators=(",", ":")))
    assert seeds_rows < 25_000
    assert len(text_) - seeds_rows < 200_000 * training.count_params(run["checkpoints"][0]["params"]) / 1404
    assert training.params_from_checkpoint(back["checkpoints"][5]) == \
        training.params_from_checkpoint(run["checkpoints"][5])


def test_the_page_carries_only_the_chosen_frame_and_the_json_file_the_others(run):
    """fig-train-frames' prerender is the last checkpoint's frame, shown; training-frames.json is the other
    19, hidden, in checkpoint order, as the same trees: together they are every checkpoint's frame."""
    import figures

    every = all_frames(run, fig.COUNT - 1)
    shown = figures.prerender()["fig-train-frames"]
    assert shown == [every[-1]] and not shown[0][1]["hidden"]
    others = json.loads(fig.files()[fig.FRAMES_FILE])
    assert others == json.loads(json.dumps(every[:-1]))  # JSON: the same trees, ints and booleans kept
    assert [f[1]["data-frame"] for f in others] == list(range(fig.COUNT - 1))
    assert all(f[1]["hidden"] is True for f in others)
    for f in others:
        dom.check(f)


def test_the_pre_rendered_frame_and_the_frames_file_stay_light(run):
    shown = "".join(dom.to_html(n) for n in fig.shown_frame(run, 19))
    # was 119 kB with all 20 frames in the page; 11.0 kB with four heads' patterns, 9.7 kB since a run of cells in
    # one bucket is one rectangle (heatmap.py). The frames file: 191 kB, then 168 kB.
    assert len(shown) < 11_000
    assert len(fig.files()[fig.FRAMES_FILE]) < 180_000
    # elements in all 20 frames: 1,406 (1,326, and each of the 80 maps' edge)
    assert sum(1 for f in all_frames(run, 19) for _ in nodes(f)) < 1500


def test_the_built_page_holds_exactly_one_checkpoint_frame(built_site, run):
    """dist/index.html: one data-frame element (the last checkpoint's, shown), the step labels on the
    slider; dist/training-frames.json: the other 19; the section no longer dominates the page."""
    page = (built_site / "index.html").read_text()
    assert re.findall(r'<div class="train-frame"[^>]*>', page) == [
        f'<div class="train-frame" data-frame="{fig.COUNT - 1}" data-label="step {run["steps"]} of {run["steps"]}">']
    assert page.count("data-frame=") == 1 and page.count('class="train-summary"') == 1
    assert 'id="train-frames-error" class="error" role="alert"' in page
    section = page[page.index('<section id="trained"'):]
    section = section[:section.index("</section>")]
    heads = len(fig.head_names(run["checkpoints"][-1]["params"]))
    # was 137 kB with every frame. A head costs about 17 kB: its map in the frame, its probe map (each cell a
    # titled <rect> with its weight) and its table of weights. The many-seed chart is its own 100 titled dots
    # (16 kB), and the phone's drawing of them, untitled (7 kB).
    seeds_figure = section[section.index('<div id="fig-seeds">'):section.index('<details class="seeds-table-view">')]
    assert len(seeds_figure) < 24_000
    assert len(section) - len(seeds_figure) < 35_000 + 17_000 * heads
    others = json.loads((built_site / fig.FRAMES_FILE).read_text())
    assert [f[1]["data-frame"] for f in others] == list(range(fig.COUNT - 1))
    assert (built_site / "training.json").is_file()


# --- the worker -------------------------------------------------------------------------------

def test_the_worker_posts_progress_then_the_measured_model():
    posted = []
    params = worker.train(seed=0, steps=12, post=lambda m: posted.append(json.loads(m)), every=5)
    kinds = [m["type"] for m in posted]
    assert kinds == ["progress"] * 3 + ["measuring", "done"]
    assert [m["step"] for m in posted[:3]] == [5, 10, 12]  # every 5 steps, and the last
    for m in posted[:3]:
        dom.check(json.loads(m["trees"])[0])
    assert json.loads(posted[2]["params"]) == params == training.train(0, 12)
    done = posted[-1]
    measured = json.loads(done["measured"])  # JSON text: the page reads no nested JS objects
    assert measured == json.loads(json.dumps(training.measure(params)))
    assert posted[2]["accuracy"] == training.accuracy(params, training.held_out(fig.QUICK))
    # One accuracy on screen: the frames while training show none; the last one, sent with "done", the held-out one.
    live = json.loads(posted[2]["trees"])[0]
    assert "measured if the run reaches its last step" in text(live) and "%" not in text(live)
    assert live[1]["data-quick-accuracy"] == posted[2]["accuracy"]  # for bench/training_page.py only
    last = json.loads(done["trees"])[0]
    assert text(last).startswith(f"Step 12 of 12: batch loss {posted[2]['loss']:.3f}, held-out accuracy "
                                 f"{fig.percent(measured['ablated'][0])}")


def test_the_worker_refuses_an_unknown_message():
    posted = []
    worker.handle(json.dumps({"type": "dance"}), posted.append)
    assert json.loads(posted[0]) == {"type": "refused", "reason": "unknown message 'dance'"}


# --- the prose ----------------------------------------------------------------------------------

def test_every_prose_mark_of_the_section_has_a_value():
    values = {key: make() for key, make in fig.PROSE.items()}
    marks = set(re.findall(r"<!--value:(train-[a-z0-9-]+)-->", SECTION))
    assert marks and marks <= set(values)
    assert values["train-chance"] == "16.7%" and values["train-lr-first"] == "0.03"
    assert values["train-lr-last"] == "0.003"  # mha.training's decay over a run, stated beside the steps field
    assert "1 in 6" in SECTION.replace("one time in six", "1 in 6")


def test_uniform_attention_would_score_0_19_on_previous_token_and_the_page_says_so():
    """Under the causal mask, a uniform row i spreads 1 / (i + 1) over i + 1 positions; the mean of 1 / (i + 1)
    over i = 1..11 is (H_12 - 1) / 11 = (3.1032 - 1) / 11 = 0.1912. mha.training.even_rows gives those rows, and the
    section prints the score from them (with the batch size, mha.training.BATCH)."""
    rows = training.even_rows(12)
    assert training.previous_token_score(rows) == pytest.approx(0.1912, abs=1e-4)
    assert all(len(set(row)) == 1 and len(row) == i + 1 and sum(row) == pytest.approx(1) for i, row in enumerate(rows))
    assert fig.PROSE["train-even-previous"]() == "0.19" and fig.PROSE["train-batch"]() == "8"
    assert "(even weights: <!--value:train-even-previous-->)" in SECTION


def test_the_probe_presets_are_mha_trainings_exact_repeat_and_near_duplicate():
    """FACEACBA: both earlier A's are followed by C; FACEADBA: one by C, one by D. The section's buttons set them."""
    assert (fig.REPEAT, fig.NEAR) == ("FACEACBA", "FACEADBA")
    assert f'data-sequence="{fig.REPEAT}"' in SECTION and f'data-sequence="{fig.NEAR}"' in SECTION


def test_the_sample_is_two_letters_then_a_run_of_distinct_letters_twice():
    tokens = fig.parse_sequence(fig.SAMPLE)
    assert tokens[2:7] == tokens[7:] and len(set(tokens[2:7])) == 5
    assert f"<kbd>{fig.SAMPLE}</kbd>" in SECTION and f'value="{fig.SAMPLE}"' in SECTION


PROGRESS = re.compile(r"^step +(\d+): loss \d\.\d{3}, layer 0 previous-token (\d\.\d\d), layer 1 induction (\d\.\d\d)$")


def test_importing_the_pages_modules_trains_nothing(tmp_path):
    """The page's Python has no build-time cache: a module that read the build-time run at import (a question's
    prompt, say) would train it there, a minute of the page's one thread before it is ready. Here site/ is copied
    away from py/ (as in the page) and training raises."""
    import shutil
    import subprocess
    import sys

    shutil.copytree(ROOT / "site", tmp_path / "site")
    code = ("import mha.training\n"
            "def boom(*args, **kwargs):\n    raise SystemExit('trained at import')\n"
            "mha.training.train = boom\n"
            "import figures, figures.questions, figures.training, figures.seeds, training.state, training.worker\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={"PYTHONPATH": f"{ROOT / 'py'}:{tmp_path / 'site'}", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr[-2000:]


def test_a_run_of_one_step_is_named_in_the_singular():
    state = st.with_trained(st.default_state(), 0, 1, training.train(0, 1), None)
    assert st.model(state, {"checkpoints": []})[2] == "your run (seed 0, 1 step)"
    assert dom.counted(1, "step") == "1 step" and dom.counted(2, "step") == "2 steps"


def test_the_section_places_its_cell_and_the_cell_prints_progress_every_20_steps_in_cpython():
    """As shipped, the cell trains 60 steps (the number the prose prints) and prints a line every 20, then the
    held-out accuracy. Raising steps, the invitation beside it: tests/browser/test_page_cells.py follows it."""
    from cells.run import run_cell
    from conftest import finished
    from cells import view

    assert "training" in view.CELLS and 'data-cell="training"' in SECTION
    out, error = finished(run_cell(view.source("training"), {}))
    assert error is None, error
    *progress, last = out.splitlines()
    assert [int(PROGRESS.match(line).group(1)) for line in progress] == [20, 40, 60]
    assert last.startswith("held-out accuracy (32 sequences): ")
    assert "steps = 60\n" in view.source("training") and fig.PROSE["train-cell-steps"]() == "60"
    assert "for <!--value:train-cell-steps--> steps" in SECTION and "<code>steps</code> to 300" in SECTION


# --- the prose budget, and the sentences rendered from the run -----------------------------------

def test_section_8_keeps_to_its_share_of_the_budget(built_site):
    """At most 760 words a reader sees (prose_count.visible_words; about 1,000 before issue 46), the sentences about
    the run and the heads note waiting for the question included."""
    page = (built_site / "index.html").read_text()
    assert visible_words(section_html(page, "trained")) <= 760


def test_the_built_page_describes_the_build_time_run_from_its_measurements(built_site, final):
    """The story and the heads note are the build-time run's own facts (describe_run of its last checkpoint),
    pre-rendered; the glue draws them again, from the reader's run, once it is on screen."""
    page = (built_site / "index.html").read_text()
    facts = fig.describe_run(final)
    for tree in fig.story(facts, "the build-time run"):
        assert dom.to_html(tree) in page
    (p_name, p_score), (i_name, i_score) = facts["previous"], facts["induction"]
    assert f"Its top induction head: {fig.head_label(*i_name)} ({i_score:.2f})" in page
    assert f"the top previous-token head before it: {fig.head_label(*p_name)} ({p_score:.2f})" in page
    assert dom.to_html(fig.heads_note(facts, training.params_from_checkpoint(final))) in page  # under the scores table


def test_the_story_says_what_switching_off_each_layer_0_head_does_to_the_induction_head(built_site, final):
    """Measured again by mha.training.head_scores with each layer-0 head off (not measure()'s table): seed 0's
    induction head (layer 1 head 1, 0.98) falls to 0.76 and 0.77, both said, lowest first, with no 'most', held
    until section 8's question is checked (it asks what one of those switches does)."""
    params = final["params"]
    on = {(r["layer"], r["head"]): r["induction"] for r in training.head_scores(params, None)}[1, 1]
    off = [{(r["layer"], r["head"]): r["induction"] for r in training.head_scores(params, None, {head})}[1, 1]
           for head in ((0, 0), (0, 1))]
    assert round(on, 2) == 0.98 and [round(x, 2) for x in off] == [0.76, 0.77]
    page = (built_site / "index.html").read_text()
    said = ("With layer 0 head 0 off, layer 1 head 1's induction score falls from 0.98 to 0.76; with layer 0 head 1 "
            "off, it falls to 0.77.")
    assert page.count(said) == 1  # in fig-train-reads, which waits for the question's Check (data-after)
    held = page.index('<div data-after="trained" hidden><div id="fig-train-reads">')
    assert held < page.index(said) < page.index("</div></div>", held)


def test_the_id_advice_in_section_10_cites_the_text_models_measurements_not_section_8s_run(built_site, final):
    """Section 10's rule argues from section 9's models, trained on text (their measured medians as near-duplicates
    crowd in, figures.text's PROSE), not from the six-letter run, whose data always
    rewards the later twin; section 8 keeps its two id buttons for its own run."""
    from figures import text as text_fig

    page = (built_site / "index.html").read_text()
    rule = section_html(page, "prompts")
    rule = rule[rule.index("Avoid near-duplicate ids"):]
    rule = rule[:rule.index("</li>")]
    assert "section 9's models" in rule
    for key in ("text-competition", "text-typical-count"):
        assert text_fig.PROSE[key]() in rule
    assert "section 8" not in rule
    trained = section_html(page, "trained")
    assert f'data-sequence="{fig.REPEAT}"' in trained and f'data-sequence="{fig.NEAR}"' in trained
    assert "single occurrence" not in section_html(page, "prompts")


def test_the_switch_off_question_is_answered_from_the_build_time_runs_measurements(final):
    """The answer is computed: the pair's induction head with the pair's previous-token head alone off (its mask
    bit), and with that head's whole layer off."""
    from figures import questions

    answer = questions.answers()["trained"]
    names = [tuple(n) for n in final["heads"]]
    # seed 0, two heads a layer, by hand (python -m mha.training --json, "composition"): layer 1 head 1 scores
    # 0.98 induction; with layer 0 head 0 alone off 0.76, over half, so it keeps its pattern ("stays"): layer 0
    # head 1 (0.48 previous-token) writes much of the same; with all of layer 0 off, 0.22
    ind, prev = names.index((1, 1)), names.index((0, 0))
    on, alone, both = (final["scores_off"][mask][ind][1] for mask in (0, 1 << prev, 0b11))
    assert (round(on, 2), round(alone, 2), round(both, 2), answer["answer"]) == (0.98, 0.76, 0.22, "stays")
    assert (f"goes from {on:.2f} to {alone:.2f} with layer 0 head 0 off, and to {both:.2f} with all of layer 0 off"
            in answer["explanation"])
    assert "switch off layer 0 head 0 alone" in questions.question("trained")[2][3]
    assert answer["verdicts"][answer["answer"]].startswith("Right")
    assert all(not v.startswith("Right") for k, v in answer["verdicts"].items() if k != answer["answer"])
    assert 'id="q-trained"' in SECTION




def test_the_build_time_runs_lock_is_taken_once_and_taken_over_from_a_process_that_died(tmp_path):
    """run_data()'s lock: the build and a test asking side by side on a clean clone train the run once. A lock a
    live process holds is not taken; one whose process has died is; one still being written is waited for."""
    import subprocess
    import sys

    lock = tmp_path / "training.lock"
    assert fig._take(lock) and lock.read_text() == str(os.getpid())
    assert not fig._take(lock)  # held, by this live process
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.write_text(dead.stdout.strip())
    assert fig._take(lock) and lock.read_text() == str(os.getpid())
    lock.write_text("")
    assert not fig._take(lock)


def test_section_8s_question_builds_from_the_default_state_without_nan_inf_or_none():
    """test_sweep.py's check of every static figure (figure_sets.py), for the one that reads the build-time run
    (this module waits for the build, which trains it: the sweep's file then runs beside the build instead of
    waiting for it)."""
    from figure_sets import BROKEN, READ_THE_RUN, STATIC
    from figures import FIGURES
    from page import state as page_state

    assert READ_THE_RUN <= set(STATIC)
    state = page_state.default_state()
    view = page_state.compute(state)
    for fid in sorted(READ_THE_RUN):
        assert not BROKEN.search(dom.to_html(["div", {}, *FIGURES[fid].build(state, view, None)])), fid
