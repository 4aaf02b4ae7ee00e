"""Section 8 for any number of heads per layer, and the facts its sentences are rendered from.

References: mha.training itself (accuracy, head_scores, forward) on models of shape (2, 2) and (2, 1)
(measure's own numbers are checked against numpy in test_training_measure.py),
made by init_params with a fixed random.Random, so no build is needed; identities of the model (a head
cannot see what a later layer writes, so switching off a later head leaves an earlier head's pattern as
it was); and hand-made measurements (fake measure() dicts) for runs that form the circuit and runs
that do not, each case's expected sentence worked out beside it.
"""

import random

import pytest

import mha.training as training
from figures import training as fig
from page import dom
from training import state as st
from trees import nodes, text

SHAPES = [(2, 2), (2, 1)]
FEW = training.held_out(6)  # a few held-out sequences: measure() is 2^heads forward passes of each


def model(shape, seed=5):
    return training.init_params(random.Random(seed), heads=shape)


@pytest.fixture(scope="module", params=SHAPES, ids=lambda s: f"heads{s}")
def measured_model(request):
    params = model(request.param)
    return request.param, params, training.measure(params, FEW)


# --- measure(): one forward pass per switch set, the same numbers as mha.training ---------

def test_measure_gives_mha_trainings_accuracy_for_every_set_of_heads_switched_off(measured_model):
    shape, params, measured = measured_model
    names = fig.head_names(params)
    assert names == [(layer, h) for layer, count in enumerate(shape) for h in range(count)]
    assert measured["heads"] == [list(n) for n in names] and len(measured["ablated"]) == 2 ** len(names)
    for mask, off in enumerate(training.ablation_sets(names)):
        assert measured["ablated"][mask] == training.accuracy(params, FEW, ablate=off)  # unrounded
        assert fig.mask_of(names, off) == mask


def test_measure_gives_mha_trainings_scores_with_every_head_on(measured_model):
    _, params, measured = measured_model
    reference = [[s["previous_token"], s["induction"]] for s in training.head_scores(params, FEW)]
    assert measured["scores"] == measured["scores_off"][0] == reference  # the same sums, in the same order


def test_switching_off_a_later_head_leaves_every_earlier_heads_scores_alone(measured_model):
    """Layer l's patterns are computed from the stream before layer l: switching off a head of the last layer
    changes nothing that any head reads, so every score is as with all heads on. Switching off a layer-0 head
    changes what layer 1 reads (its scores move) but not layer 0's own scores."""
    _, params, measured = measured_model
    names = fig.head_names(params)
    for i, (layer, _) in enumerate(names):
        scores = measured["scores_off"][1 << i]
        if layer == 1:
            assert scores == measured["scores"]
        else:
            assert [s for n, s in zip(names, scores) if n[0] == 0] == \
                [s for n, s in zip(names, measured["scores"]) if n[0] == 0]
            assert [s for n, s in zip(names, scores) if n[0] == 1] != \
                [s for n, s in zip(names, measured["scores"]) if n[0] == 1]


# --- the trees loop over the params' heads -----------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_the_probe_draws_every_head_with_each_cells_exact_weight(shape):
    """12 tokens: 1 + 2 + ... + 12 = 78 unmasked cells a head, each a focusable <rect> titled with its weight."""
    params = model(shape)
    tokens = fig.parse_sequence(fig.SAMPLE)
    trees = fig.probe(params, tokens, "m")
    for tree in trees:
        dom.check(tree)
    maps = [n for n in nodes(trees[0]) if n[0] == "svg"]
    weights = training.forward(params, tokens).weights
    names = fig.head_names(params)
    assert len(maps) == len(names) == sum(shape)
    for svg, (layer, h) in zip(maps, names):
        rects = [n for n in nodes(svg) if n[0] == "rect"]
        assert len(rects) == 78
        assert [r[1]["tabindex"] for r in rects].count(0) == 1  # one tab stop a map; arrow keys inside
        for r in rects:
            i, j = r[1]["data-q"], r[1]["data-k"]
            assert text(r).endswith(f": {weights[layer][h][i][j]:.4f}")
            assert r[1]["class"] == f"{dom.weight_class(weights[layer][h][i][j])} cell"  # its bucket, readable
        assert svg[1]["aria-label"].startswith(fig.head_label(layer, h))
    tables = fig.probe_weights(params, tokens)
    assert [t[1]["aria-label"] for t in tables] == [f"{fig.head_label(*n)} weights" for n in names]
    first_row = [text(c) for c in nodes(tables[-1]) if c[0] == "td"][:12]
    assert first_row == ["1.0000"] + [""] * 11  # position 0 sees only itself


@pytest.mark.parametrize("shape", SHAPES)
def test_switching_off_a_layer_0_head_redraws_layer_1s_patterns_and_the_guesses(shape):
    params = model(shape)
    tokens = fig.parse_sequence(fig.SAMPLE)
    off = {(0, 0)}
    trace = training.forward(params, tokens, ablate=off)
    on, switched = (fig.probe(params, tokens, "m", frozenset(s)) for s in (set(), off))
    maps_on, maps_off = ([n for n in nodes(t[0]) if n[0] == "svg"] for t in (on, switched))
    names = fig.head_names(params)
    for svg_on, svg_off, (layer, h) in zip(maps_on, maps_off, names):
        def weights_of(svg):
            return [(r[1]["class"], text(r).rsplit(": ", 1)[1]) for r in nodes(svg) if r[0] == "rect"]
        # layer 0's own patterns stay (the off head's too: drawn off, but computed); layer 1's are computed again
        assert (weights_of(svg_on) == weights_of(svg_off)) == (layer == 0)
        cells = {(r[1]["data-q"], r[1]["data-k"]): text(r) for r in nodes(svg_off) if r[0] == "rect"}
        assert cells[11, 5].endswith(f"{trace.weights[layer][h][11][5]:.4f}")
    guesses = [text(c) for c in nodes(switched[-1]) if c[0] == "td" and "guess" in c[1].get("class", "")]
    assert guesses == [fig.LETTERS[training.model.argmax(row)] for row in trace.logits]
    assert "layer 0 head 0 switched off" in text(switched[-1])


@pytest.mark.parametrize("shape", SHAPES)
def test_switches_and_scores_have_a_line_per_head_and_the_accuracy_column_follows_the_switches(shape):
    """With the last head off, each other head's accuracy is with both off (mask | its bit); the off head's is a
    dash, and the column says so."""
    params = model(shape)
    measured = training.measure(params, FEW)
    names = fig.head_names(params)
    boxes = [n for n in nodes(fig.switches(names, {names[-1]}, True)[0]) if n[0] == "input"]
    assert [b[1]["data-head"] for b in boxes] == list(range(len(names)))
    assert [b[1]["checked"] for b in boxes] == [False] * (len(names) - 1) + [True]
    table, line, note = fig.scores_table(measured, names, {names[-1]}, "m")
    rows = table[4][2:]
    assert len(rows) == len(names) and text(rows[-1]).startswith(f"{fig.head_label(*names[-1])} (off)")
    last = 1 << (len(names) - 1)
    for i, row in enumerate(rows):
        expected = "\u2014" if i == len(names) - 1 else fig.percent(measured["ablated"][last | 1 << i])
        assert text(row[-1]) == expected
    assert "accuracy with it off too" in text(table[3]) and fig.percent(measured["ablated"][last]) in text(line)
    assert "accuracy without it" in text(fig.scores_table(measured, names, set(), "m")[0][3])


@pytest.mark.parametrize("shape", SHAPES)
def test_a_switched_off_heads_map_is_drawn_off(shape):
    params = model(shape)
    trees = fig.probe(params, fig.parse_sequence(fig.SAMPLE), "m", frozenset({(0, 0)}))
    heads = [n for n in nodes(trees[0]) if n[0] == "figure"]
    assert [("off" in h[1].get("class", "").split()) for h in heads] == [i == 0 for i in range(len(heads))]
    assert text(heads[0]).endswith("layer 0 head 0 (off)") and not text(heads[1]).endswith("(off)")


def test_the_state_shows_the_readers_model_with_its_own_heads_and_ignores_switches_it_lacks():
    params = model((2, 1))
    state = st.with_switch(st.with_switch(st.default_state(), (0, 1), True), (1, 1), True)
    state = st.with_trained(state, 3, 20, params, None)
    run = {"steps": 20, "checkpoints": []}
    assert st.shown_off(state, params) == {(0, 1)}  # (2, 1) has no layer 1 head 1
    assert "is not measured yet" in text(st.story_trees(state, run)[0])
    assert "measured when training ends" in text(st.scores_trees(state, run)[0])
    assert len([n for n in nodes(st.switches_trees(state, run)[0]) if n[0] == "input"]) == 3
    started = st.with_reset(state)
    assert started["trained"] is None and started["source"] == "checkpoint"  # a Stop before step 1 shows no model


# --- describe_run: the facts, for runs that form the circuit and runs that do not ---------------

NAMES = [[0, 0], [0, 1], [1, 0], [1, 1]]
COPY = {"head": [1, 0], "repeat": {"weights": [0.69, 0.31], "guess": 2, "p": 0.998, "continuations": [[2, 0.998]] * 2},
        "near": {"weights": [0.45, 0.55], "guess": 3, "p": 0.52, "continuations": [[2, 0.41], [3, 0.52]]}}


def fake(scores, ablated, partner=None, first_token=(0.3, 0.25)):
    """A measure() dict for 4 heads: scores per head, accuracy with each alone off; scores_off for every mask
    equal to scores, except partner = (mask, head, induction) for one switched-off set."""
    full = [ablated[0]] + [0.5] * 15
    for i, a in enumerate(ablated[1:]):
        full[1 << i] = a
    scores_off = [[list(s) for s in scores] for _ in range(16)]
    if partner:
        mask, head, induction = partner
        scores_off[mask][head][1] = induction
    return {"heads": NAMES, "scores": scores, "ablated": full, "scores_off": scores_off,
            "first_token": [list(first_token)] * 4, "copy": COPY}


def test_a_run_that_forms_the_circuit_is_said_to():
    """Layer 1 head 0 scores 0.97 induction (>= 0.8); the best previous-token head of layer 0, head 1, 0.62
    (>= 0.4). Layer 1 head 1's 0.7 previous-token score is beside the induction head, so it is not asked."""
    measured = fake([[0.2, 0.03], [0.62, 0.03], [0.15, 0.97], [0.7, 0.1]], [1.0, 0.98, 0.30, 0.27, 0.99],
                    partner=(1 << 0, 2, 0.41))  # layer 0 head 0 off: the induction head falls to 0.41
    facts = fig.describe_run(measured)
    assert facts["kind"] == "circuit" and facts["previous"] == ((0, 1), 0.62) and facts["induction"] == ((1, 0), 0.97)
    story = text(fig.story(facts, "the build-time run")[0])
    assert story == ("The build-time run reaches 100.0% held-out. Its top induction head: layer 1 head 0 (0.97); "
                     "the top previous-token head before it: layer 0 head 1 (0.62). Both reach their lines (0.4 and "
                     "0.8): the pair formed.")
    reads = text(fig.reads_through(facts))  # fig-train-reads, held until Check; the head it reads through, not the top
    assert reads == ("With layer 0 head 0 off, layer 1 head 0's induction score falls from 0.97 to 0.41; with layer 0 "
                     "head 1 off, it stays at 0.97.")


def test_two_numbers_said_side_by_side_get_the_digits_that_tell_them_apart():
    from page.dom import apart

    assert apart(0.9805, 0.7631) == ("0.98", "0.76") and apart(0.7631, 0.7649) == ("0.763", "0.765")
    assert apart(0.76312, 0.76318) == ("0.7631", "0.7632") and apart(0.97, 0.97) == ("0.97", "0.97")


def test_the_heads_note_says_who_shares_the_job_what_costs_nothing_and_where_the_induction_head_looks():
    """Seed 0's build-time run, by hand: layer 0's heads score 0.52 and 0.48 previous-token (both >= 0.4);
    switching off layer 1 head 0 leaves 100.0%; the induction head puts 0.30 on the first token where it has
    nothing to copy, on average, against 0.28 for even weights."""
    measured = fake([[0.52, 0.06], [0.48, 0.07], [0.29, 0.05], [0.09, 0.98]], [1.0, 0.869, 0.81, 1.0, 0.293],
                    partner=(1 << 0, 3, 0.76), first_token=(0.30, 0.28))
    measured["ablated"][0b0011] = 0.293  # both layer-0 heads off
    said = text(fig.heads_note(fig.describe_run(measured)))
    assert said == ("Layer 0 shares the previous-token job: layer 0 head 0 (0.52) and layer 0 head 1 (0.48) each "
                    "pass 0.4; accuracy with one off: 86.9% and 81.0%, both: 29.3%. Without layer 1 head 0: 100.0%, "
                    "no cost. Where a letter has no earlier twin, layer 1 head 1 puts 0.30 of its weight on the first "
                    "token on average (even weights: 0.28).")
    measured["ablated"][0b0011] = None  # a checkpoint measured with one head off at a time: no both-off figure
    assert "one off: 86.9% and 81.0%. Without" in text(fig.heads_note(fig.describe_run(measured)))


def test_the_sink_sentence_says_row_by_row_where_the_average_hides_rows_that_park():
    """An average of 0.30 on the first token can be rows of 1.00 and rows of 0.00 (issue 46: the default map's rows
    2-3 put 0.9996 and 0.9087 there). With the run's params, the sentence gives the sample's rows whose letter is
    new (B E C A F D: rows 1-5), each weight from a numpy forward pass (mha.training.first_token_rows), and counts
    those at 0.5 or more."""
    from training_reference import numpy_forward

    params = training.params_from_checkpoint(fig.run_data()["checkpoints"][-1])
    tokens = fig.parse_sequence(fig.SAMPLE)
    weights, _ = numpy_forward(params, tokens)
    facts = fig.describe_run(fig.run_data()["checkpoints"][-1])
    name = facts["induction"][0]
    rows = [weights[name[0]][name[1]][i][0] for i in range(1, 6)]
    found = training.first_token_rows(params, name, tokens)
    assert [i for i, _ in found] == [1, 2, 3, 4, 5]
    assert [w for _, w in found] == pytest.approx(rows, abs=1e-9)
    parked = sum(w >= 0.5 for w in rows)
    assert 0 < parked < 5  # parks on some rows, not on others: what section 10's last rule says of this run
    said = fig.sink_sentence(facts, params)
    assert said.endswith(f"(even weights: 0.28), but BECAFDBCAFDB's rows 1-5 put {', '.join(f'{w:.2f}' for w in rows)}: "
                         f"a sink (0.5 or more) on {parked} of 5.")


def test_a_run_whose_induction_job_sits_in_layer_0_says_so():
    """Layer 0 head 0 scores 0.85 on induction (>= 0.8), layer 1 0.02: no earlier layer; 95.3% held-out."""
    measured = fake([[0.3, 0.85], [0.25, 0.1], [0.2, 0.02], [0.2, 0.01]], [0.953, 0.2, 0.8, 0.88, 0.88])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "early" and facts["previous"] is None and facts["induction"] == ((0, 0), 0.85)
    story = text(fig.story(facts, "your run (seed 12, 800 steps)")[0])
    assert story == ("Your run (seed 12, 800 steps) reaches 95.3% held-out. Its top induction head: layer 0 head 0 "
                     "(0.85). It sits in layer 0, with no earlier layer to read from: no pair.")


def test_a_run_that_stalls_says_so_with_each_score_beside_its_line():
    measured = fake([[0.3, 0.1], [0.25, 0.1], [0.2, 0.7998], [0.2, 0.2]], [0.71, 0.7, 0.7, 0.6, 0.7])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "stalled"
    story = text(fig.story(facts, "your run")[0])
    # 0.7998 prints as 0.7998, not 0.80: beside 0.8 the comparison must read true
    assert story.endswith("Its top induction head: layer 1 head 0 (0.7998); the top previous-token head before it: "
                          "layer 0 head 0 (0.30). No pair: the previous-token score, 0.30, is under 0.4 and the "
                          "induction score, "
                          "0.7998, is under 0.8; and it is still below 90.0%.")


def test_a_checkpoint_caught_mid_formation_is_not_a_pair_yet():
    """The build-time run at step 240 (seed 0): induction 0.7998, previous-token 0.44, 90.3% held-out."""
    measured = fake([[0.4354, 0.05], [0.4057, 0.06], [0.23, 0.07], [0.11, 0.7998]], [0.9033, 0.6, 0.6, 0.9, 0.3])
    story = text(fig.story(fig.describe_run(measured, finished=False), "the build-time run at step 240")[0])
    assert story.endswith("Not a pair yet: the induction score, 0.7998, is under 0.8.")
    assert "another way" not in story


def test_a_run_that_learns_without_a_pair_says_what_it_leaned_on():
    """99.4% with layer 1's best induction score 0.35, under the line: the head whose loss costs most."""
    measured = fake([[0.5, 0.1], [0.3, 0.2], [0.2, 0.35], [0.2, 0.3]], [0.994, 0.6, 0.9, 0.8, 0.8])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "other"
    assert text(fig.story(facts, "your run")[0]).endswith(
        "No pair: the induction score, 0.35, is under 0.8. It learned all the same, leaning most on layer 0 head 0 "
        "(without it, 60.0%).")


def test_an_earlier_checkpoint_keeps_each_head_alone_off_and_says_so_for_other_sets():
    """(2, 2): 16 sets of heads switched off; single_masks is every head on and each alone off, 1 + 4 = 5 of
    them. The others are None, and the scores table says they were not measured instead of showing a number."""
    params = model((2, 2))
    names = fig.head_names(params)
    measured = training.measure(params, FEW, masks=fig.single_masks(names))
    full = training.measure(params, FEW)
    assert fig.describe_run(measured) == fig.describe_run(full)  # the facts need no other set
    note = fig.scores_table(measured, names, {(0, 0), (1, 1)}, "The build-time run at step 40")
    assert text(note[0]).startswith("The build-time run at step 40: measured with one head off at a time")
    assert text(note[0]).endswith("leave out layer 0 head 0, layer 1 head 1.")


def test_the_verdict_is_classifys_so_the_story_and_the_seed_figure_agree():
    """Layer 1 head 1's 0.8 previous-token score sits beside the induction head (layer 1 head 0, 0.9): classify
    asks layer 0, whose head 0 scores 0.5: a pair, and the story says the same."""
    measured = fake([[0.5, 0.1], [0.1, 0.1], [0.2, 0.9], [0.8, 0.1]], [0.99, 0.3, 0.9, 0.4, 0.9], partner=(1, 2, 0.2))
    facts = fig.describe_run(measured)
    report = [{"layer": layer, "head": head, "previous_token": p, "induction": i}
              for (layer, head), (p, i) in zip([(0, 0), (0, 1), (1, 0), (1, 1)], measured["scores"])]
    assert training.classify(report, 0.99)["kind"] == "pair"
    assert facts["kind"] == "circuit" and facts["previous"] == ((0, 0), 0.5)

