"""Section 8 for any number of heads per layer, and the facts its sentences are rendered from.

References: mha.training itself (accuracy, head_scores, forward) on models of shape (2, 2) and (2, 1),
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
    return request.param, params, fig.measure(params, FEW)


# --- measure(): one forward pass per switch set, the same numbers as mha.training ---------

def test_measure_gives_mha_trainings_accuracy_for_every_set_of_heads_switched_off(measured_model):
    shape, params, measured = measured_model
    names = fig.head_names(params)
    assert names == [(layer, h) for layer, count in enumerate(shape) for h in range(count)]
    assert measured["heads"] == [list(n) for n in names] and len(measured["ablated"]) == 2 ** len(names)
    for mask, off in enumerate(fig.ablation_sets(names)):
        assert measured["ablated"][mask] == round(training.accuracy(params, FEW, ablate=off), 4)
        assert fig.mask_of(names, off) == mask


def test_measure_gives_mha_trainings_scores_with_every_head_on(measured_model):
    _, params, measured = measured_model
    reference = [[round(s["previous_token"], 4), round(s["induction"], 4)] for s in training.head_scores(params, FEW)]
    assert measured["scores"] == measured["scores_off"][0] == reference


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
            assert r[1]["class"] == dom.weight_class(weights[layer][h][i][j])
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
        assert (svg_on == svg_off) == (layer == 0)  # layer 0's own patterns stay; layer 1's are computed again
        cells = {(r[1]["data-q"], r[1]["data-k"]): text(r) for r in nodes(svg_off) if r[0] == "rect"}
        assert cells[11, 5].endswith(f"{trace.weights[layer][h][11][5]:.4f}")
    guesses = [text(c) for c in nodes(switched[-1]) if c[0] == "td" and "guess" in c[1].get("class", "")]
    assert guesses == [fig.LETTERS[training.model.argmax(row)] for row in trace.logits]
    assert "layer 0 head 0 switched off" in text(switched[-1])


@pytest.mark.parametrize("shape", SHAPES)
def test_switches_scores_and_story_have_a_line_per_head(shape):
    params = model(shape)
    measured = fig.measure(params, FEW)
    names = fig.head_names(params)
    boxes = [n for n in nodes(fig.switches(names, {names[-1]}, True)[0]) if n[0] == "input"]
    assert [b[1]["data-head"] for b in boxes] == list(range(len(names)))
    assert [b[1]["checked"] for b in boxes] == [False] * (len(names) - 1) + [True]
    table, line = fig.scores_table(measured, names, {names[-1]}, "m")
    assert len(table[4][2:]) == len(names) and text(table[4][-1]).startswith(f"{fig.head_label(*names[-1])} (off)")
    assert fig.percent(measured["ablated"][1 << (len(names) - 1)]) in text(line)
    story = text(fig.story(fig.describe_run(measured), "your run")[0])
    for i, name in enumerate(names):
        assert f"{fig.head_label(*name)} {fig.percent(measured['ablated'][1 << i])}" in story


def test_the_state_shows_the_readers_model_with_its_own_heads_and_ignores_switches_it_lacks():
    params = model((2, 1))
    state = st.with_switch(st.with_switch(st.default_state(), (0, 1), True), (1, 1), True)
    state = st.with_trained(state, 3, 20, params, None)
    run = {"steps": 20, "checkpoints": []}
    assert st.shown_off(state, params) == {(0, 1)}  # (2, 1) has no layer 1 head 1
    assert "is not measured yet" in text(st.story_trees(state, run)[0]) and st.copy_trees(state, run) == []
    assert "measured when training ends" in text(st.scores_trees(state, run)[0])
    assert len([n for n in nodes(st.switches_trees(state, run)[0]) if n[0] == "input"]) == 3
    started = st.with_reset(state)
    assert started["trained"] is None and started["source"] == "checkpoint"  # a Stop before step 1 shows no model


# --- describe_run: the facts, for runs that form the circuit and runs that do not ---------------

NAMES = [[0, 0], [0, 1], [1, 0], [1, 1]]
COPY = {"head": 2, fig.REPEAT: {"weights": [0.69, 0.31], "guess": 2, "p": 0.998},
        fig.NEAR: {"weights": [0.45, 0.55], "guess": 3, "p": 0.52}}


def fake(scores, ablated, partner=None):
    """A measure() dict for 4 heads: scores per head, accuracy with each alone off; scores_off for every mask
    equal to scores, except partner = (mask, head, induction) for one switched-off set."""
    full = [ablated[0]] + [0.5] * 15
    for i, a in enumerate(ablated[1:]):
        full[1 << i] = a
    scores_off = [[list(s) for s in scores] for _ in range(16)]
    if partner:
        mask, head, induction = partner
        scores_off[mask][head][1] = induction
    return {"heads": NAMES, "scores": scores, "ablated": full, "scores_off": scores_off, "copy": COPY}


def test_a_run_that_forms_the_circuit_is_said_to_and_its_partner_is_measured():
    """Layer 0 head 1 scores 0.62 previous-token (>= 0.4), layer 1 head 0 0.97 induction (>= 0.8), in layer order.
    Switching off layer 0 head 1 (mask 2) takes layer 1 head 0's induction score to 0.19."""
    measured = fake([[0.2, 0.03], [0.62, 0.03], [0.15, 0.97], [0.3, 0.1]], [1.0, 0.98, 0.30, 0.27, 0.99],
                    partner=(2, 2, 0.19))
    facts = fig.describe_run(measured)
    assert facts["kind"] == "circuit" and facts["pair"] == (((0, 1), 0.62), ((1, 0), 0.97))
    assert facts["partner_off"] == 0.19 and facts["accuracy"] == 1.0
    assert facts["named"] == [((0, 1), "previous-token"), ((1, 0), "induction")]
    story = text(fig.story(facts, "the build-time run")[0])
    assert story.startswith("The build-time run reaches 100.0% held-out. Top previous-token score: layer 0 "
                            "head 1's, 0.62; top induction score: layer 1 head 0's, 0.97.")
    assert ("layer 1 head 0's, 0.97. Both pass their lines (0.4 and 0.8), the previous-token head in an earlier "
            "layer (0) than the induction head (1): it formed the circuit.") in story
    assert "induction score falls" not in story  # the answer to section 8's question waits for its Check
    assert "layer 0 head 0 98.0%; layer 0 head 1 30.0%; layer 1 head 0 27.0%; layer 1 head 1 99.0%" in story
    copy = text(fig.copy_story(facts, "the build-time run")[0])
    assert "layer 1 head 0 (its top induction head) puts 0.69 and 0.31 on the C after each A in FACEACBA" in copy
    assert "both A's lead to C, so the guess is C, with p = 1.00." in copy
    assert "0.45 and 0.55, and the guess is D with p = 0.52, close to a coin toss." in copy


def test_a_near_duplicate_that_is_no_coin_toss_says_which_continuation_won():
    """(2, 2) seed 0 at 800 steps put 0.15 and 0.85 on C and D, guessing D with p = 1.00: the later A wins."""
    assert fig.near_verdict([0.15, 0.85], "D", 1.0) == "the guess is D with p = 1.00: the later A wins, " \
                                                       "whichever id was meant"
    assert fig.near_verdict([0.9, 0.1], "C", 0.9).endswith("the earlier A wins, whichever id was meant")
    assert fig.near_verdict([0.45, 0.55], "D", 0.52) == "the guess is D with p = 0.52, close to a coin toss"
    # the winner is the A whose continuation is guessed, whatever the weights (seed 24: 0.61 on C, guessing C)
    assert fig.near_verdict([0.61, 0.01], "C", 0.99).endswith("the earlier A wins, whichever id was meant")
    assert fig.near_verdict([0.61, 0.01], "E", 0.99) == "the guess is E with p = 0.99, neither A's continuation"


def test_a_run_that_does_not_copy_the_exact_repeat_is_not_said_to():
    """Seed 24 (2, 2), 800 steps: layer 0 head 0 puts 0.61 and 0.01 on FACEACBA's C's, and the guess is E."""
    facts = fig.describe_run(fake([[0.3, 0.38], [0.36, 0.1], [0.2, 0.02], [0.2, 0.01]], [0.975, 0.28, 0.72, 0.85, 0.75]))
    facts["copy"] = {fig.REPEAT: ([0.61, 0.01], "E", 0.79), fig.NEAR: ([0.61, 0.01], "C", 0.99)}
    copy = text(fig.copy_story(facts, "your run")[0])
    assert "both A's lead to C, yet the guess is E, not C: this run does not copy here, with p = 0.79." in copy
    assert "so the guess is" not in copy and "the earlier A wins" in copy


def test_a_run_whose_induction_job_sits_in_layer_0_says_so():
    """Layer 0 head 0 scores 0.85 on induction (>= 0.8), layer 1 0.02: the job sits in layer 0; 95.3% held-out."""
    measured = fake([[0.3, 0.85], [0.25, 0.1], [0.2, 0.02], [0.2, 0.01]], [0.953, 0.2, 0.8, 0.88, 0.88])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "early" and facts["pair"] is None and facts["top_induction"] == ((0, 0), 0.85)
    story = text(fig.story(facts, "your run (seed 12, 800 steps)")[0])
    assert story.startswith("Your run (seed 12, 800 steps) reaches 95.3%")
    assert "no induction head formed after a previous-token head: layer 0 head 0 does an induction-like job" in story
    assert "formed the circuit" not in story


def test_a_run_that_stalls_says_it_never_formed_the_circuit():
    measured = fake([[0.3, 0.1], [0.25, 0.1], [0.2, 0.3], [0.2, 0.2]], [0.71, 0.7, 0.7, 0.6, 0.7])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "stalled" and facts["named"] == []
    story = text(fig.story(facts, "your run")[0])
    # (0.3 and 0.3 are under both lines: classify's "missing" is previous-token and induction)
    assert ("No pair formed: the top previous-token score, 0.300, is under 0.4 and the top induction score, 0.300, "
            "is under 0.8; and it is still below 90.0%.") in story


def test_a_run_that_learns_without_a_named_pair_says_the_work_is_spread():
    """99.4% with layer 1's best induction score 0.35, under the threshold, and no layer-0 head above it."""
    measured = fake([[0.5, 0.1], [0.3, 0.2], [0.2, 0.35], [0.2, 0.3]], [0.994, 0.6, 0.9, 0.8, 0.8])
    facts = fig.describe_run(measured)
    assert facts["kind"] == "other" and facts["named"] == [((0, 0), "previous-token")]
    # what it did instead: the head whose switching off costs most (layer 0 head 0: 60.0%)
    assert ("No pair formed: the top induction score, 0.350, is under 0.8. It found another way, leaning most on "
            "layer 0 head 0 (without it, 60.0%).") in text(fig.story(facts, "your run")[0])


def test_an_induction_head_with_no_earlier_previous_token_head_is_not_a_circuit():
    """The induction head is layer 1 head 0 (0.8), and the only head >= 0.4 on previous-token is layer 1 head 1
    (0.7), in the same layer, not an earlier one: nothing could have fed it, so there is no pair."""
    measured = fake([[0.2, 0.1], [0.1, 0.1], [0.2, 0.8], [0.7, 0.1]], [0.95, 0.9, 0.9, 0.5, 0.9])
    facts = fig.describe_run(measured)
    assert facts["pair"] is None and facts["kind"] == "other"


def test_an_earlier_checkpoint_keeps_each_head_alone_off_and_says_so_for_other_sets():
    """(2, 2): 16 sets of heads switched off; single_masks is every head on and each alone off, 1 + 4 = 5 of
    them. The others are None, and the scores table says they were not measured instead of showing a number."""
    params = model((2, 2))
    names = fig.head_names(params)
    assert fig.single_masks(names) == {0, 1, 2, 4, 8}
    measured = fig.measure(params, FEW, masks=fig.single_masks(names))
    full = fig.measure(params, FEW)
    for mask in range(16):
        kept = mask in {0, 1, 2, 4, 8}
        assert measured["ablated"][mask] == (full["ablated"][mask] if kept else None)
        assert measured["scores_off"][mask] == (full["scores_off"][mask] if kept else None)
    assert fig.describe_run(measured) == fig.describe_run(full)  # the facts need no other set
    note = fig.scores_table(measured, names, {(0, 0), (1, 1)}, "The build-time run at step 40")
    assert text(note[0]).startswith("The build-time run at step 40: measured with one head off at a time")
    assert text(note[0]).endswith("leave out layer 0 head 0, layer 1 head 1.")


def test_the_verdict_is_classifys_so_the_story_and_the_seed_figure_agree():
    """The top previous-token head is layer 1 head 1 (0.8), in the induction head's own layer: mha.training.classify
    calls that no pair (whatever layer 0 head 0's 0.5 might feed), and the story says the same."""
    measured = fake([[0.5, 0.1], [0.1, 0.1], [0.2, 0.9], [0.8, 0.1]], [0.99, 0.3, 0.9, 0.4, 0.9], partner=(1, 2, 0.2))
    facts = fig.describe_run(measured)
    report = [{"layer": layer, "head": head, "previous_token": p, "induction": i}
              for (layer, head), (p, i) in zip([(0, 0), (0, 1), (1, 0), (1, 1)], measured["scores"])]
    assert training.classify(report, 0.99)["kind"] == "other"
    assert facts["pair"] is None and facts["kind"] == "other"
    assert "No pair formed: layer 1 head 1 is not in an earlier layer than layer 1 head 0." in text(
        fig.story(facts, "your run")[0])
