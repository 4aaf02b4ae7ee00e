"""mha.training.measure: what the page shows of a trained model, against an independent numpy forward pass.

References: training_reference.numpy_forward (the model's formulas in numpy), the score formulas written out here,
and hand-built patterns. Models come from init_params with a fixed random.Random: no training, no build.
"""

import random

import numpy as np
import pytest

import mha.training as training
from training_reference import numpy_forward

FEW = training.held_out(5)
HEADS = [(0, 0), (0, 1), (1, 0), (1, 1)]


@pytest.fixture(scope="module")
def params():
    return training.init_params(random.Random(7), (2, 2))


@pytest.fixture(scope="module")
def measured(params):
    return training.measure(params, FEW)


def reference(params, off):
    """(accuracy, [[previous-token, induction] per head]) on FEW with the heads in off not added, in numpy."""
    correct = count = 0
    sums = np.zeros((len(HEADS), 2))
    for tokens, n in FEW:
        weights, logits = numpy_forward(params, tokens, off)
        second = len(tokens) - n  # the second copy starts here; position p's answer sits at p - n + 1
        pinned = [p for p in range(second, len(tokens) - 1)]
        correct += sum(int(np.argmax(logits[p])) == tokens[p + 1] for p in pinned)
        count += len(pinned)
        for i, (layer, head) in enumerate(HEADS):
            w = weights[layer][head]
            sums[i, 0] += np.mean([w[q, q - 1] for q in range(1, len(tokens))])
            sums[i, 1] += np.mean([w[p, p - n + 1] for p in pinned])
    return correct / count, sums / len(FEW)


def test_the_masks_are_the_sets_of_heads_by_bit():
    sets = training.ablation_sets(HEADS)
    assert sets[0] == set() and sets[1] == {(0, 0)} and sets[0b0110] == {(0, 1), (1, 0)} and len(sets) == 16
    assert training.mask_of(HEADS, {(1, 1), (0, 0)}) == 0b1001
    assert training.single_masks(HEADS) == {0, 1, 2, 4, 8}


def test_the_pinned_positions_are_the_second_copy_but_its_last_token(params):
    for tokens, n in FEW:
        assert training.pinned_positions(n) == list(range(len(tokens) - n, len(tokens) - 1))


@pytest.mark.parametrize("mask", range(16))
def test_accuracy_and_scores_for_every_set_of_heads_off_match_numpy_unrounded(params, measured, mask):
    accuracy, scores = reference(params, training.ablation_sets(HEADS)[mask])
    assert measured["ablated"][mask] == pytest.approx(accuracy, abs=1e-12)  # a fraction, not a rounded one
    assert np.allclose(measured["scores_off"][mask], scores, atol=1e-12)
    assert measured["scores"] == measured["scores_off"][0]


def test_only_the_masks_asked_for_are_measured(params):
    some = training.measure(params, FEW, masks={0, 4})
    assert [m for m, a in enumerate(some["ablated"]) if a is not None] == [0, 4]


def test_the_first_token_weight_of_a_hand_built_pattern():
    """Tokens A B A C: positions 1 (B) and 3 (C) have no earlier twin; position 2 (A) has one. The pattern puts
    0.6 on token 0 at position 1 and 0.1 at position 3: 0.7 in all; even weights would put 1/2 + 1/4 = 0.75."""
    weights = [[1.0, 0, 0, 0], [0.6, 0.4, 0, 0], [0.9, 0.05, 0.05, 0], [0.1, 0.2, 0.3, 0.4]]
    assert training.fresh_positions([0, 1, 0, 2]) == [1, 3]  # position 2 repeats token 0; position 0 is the first
    assert training.first_token_weight(weights, [0, 1, 0, 2]) == pytest.approx((0.7, 0.75, 2))


def test_the_first_token_weight_is_measured_per_head_with_every_head_on(params, measured):
    for i, (layer, head) in enumerate(HEADS):
        total = even = count = 0
        for tokens, _ in FEW:
            w = numpy_forward(params, tokens)[0][layer][head]
            fresh = [q for q in range(1, len(tokens)) if tokens[q] not in tokens[:q]]
            total, even, count = total + sum(w[q, 0] for q in fresh), even + sum(1 / (q + 1) for q in fresh), \
                count + len(fresh)
        assert measured["first_token"][i] == pytest.approx([total / count, even / count], abs=1e-12)
