"""mha.training: the task, the hand-written backward pass, training, probes, checkpoints, CLI.

References are independent of the code under test: central finite differences
for the gradients, attention patterns built by hand for the probes, the task's
definition for the data.
"""

import concurrent.futures
import functools
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mha.training import (
    LENGTH, VOCAB, accuracy, checkpoints, count_params, evaluate, forward, gradients, head_report,
    induction_score, init_params, make_batch, make_sequence, params_from_checkpoint, pinned_positions,
    predict, previous_token_score, round_params, train,
)
from mha.training.model import blocks

PY = Path(__file__).resolve().parents[2] / "py"


SEEDS = range(10)


@functools.cache
def all_trained():
    """{seed: params} of a default run for seeds 0-9, trained once per session, two at a time (2 cores)."""
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        return dict(zip(SEEDS, pool.map(train, SEEDS)))


def trained(seed):
    """The params of a default run for seed."""
    return all_trained()[seed]


@functools.cache
def report(seed):
    return head_report(trained(seed))


# --- the task -----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_second_copy_equals_first_and_pinned_positions_predict_tokens_2_to_n_of_it(seed):
    rng = random.Random(seed)
    for _ in range(200):
        tokens, n = make_sequence(rng)
        k = LENGTH - 2 * n
        assert len(tokens) == LENGTH and 2 <= n <= 6 and all(0 <= t < VOCAB for t in tokens)
        assert tokens[k:k + n] == tokens[k + n:]
        assert len(set(tokens[k:k + n])) == n  # distinct: the last occurrence is in the first copy
        # position p predicts tokens[p + 1]: from the second copy's 1st token to its (n-1)th
        assert [p + 1 for p in pinned_positions(n)] == list(range(k + n + 1, LENGTH))


def test_the_repeats_offset_varies():
    lengths = {n for _, n in make_batch(random.Random(0), 200)}
    assert lengths == {2, 3, 4, 5, 6}


def test_pinned_positions_worked_by_hand():
    """n = 3: k = 6, first copy at 6-8, second at 9-11; positions 9 and 10 predict tokens 10 and 11."""
    assert pinned_positions(3) == [9, 10]
    assert pinned_positions(6) == [6, 7, 8, 9, 10]


def test_batches_are_deterministic_for_a_seed():
    assert make_batch(random.Random(7), 8) == make_batch(random.Random(7), 8)
    assert make_batch(random.Random(7), 8) != make_batch(random.Random(8), 8)


# --- the model and its gradients ----------------------------------------------------------------

def test_one_head_per_layer_has_1404_parameters():
    """2 layers x (18 x 18 QK + 18 x 18 OV) + 18 x 6 unembedding = 2 * 648 + 108."""
    assert count_params(init_params(random.Random(0))) == 1404


@pytest.mark.parametrize("heads", [(1, 1), (1, 2)])
def test_gradients_match_central_finite_differences_for_every_block(heads):
    """In every parameter block (each layer's QK and OV, per head, and the unembedding), its first and
    last entries and 40 more drawn by a seeded generator, on a batch of 3: |analytic - numeric| <= 1e-6
    absolute (numeric: (L(w + h) - L(w - h)) / 2h, h = 1e-5; its own error is ~1e-10 here).
    All 1,404 entries pass too, but take a minute; every entry is computed by the same code."""
    rng = random.Random(1)
    params = init_params(rng, heads)
    batch = make_batch(rng, 3)
    _, grads = gradients(params, batch)
    h = 1e-5
    pick = random.Random(7)
    for block, grad in zip(blocks(params), blocks(grads)):
        cells = [(i, j) for i in range(len(block)) for j in range(len(block[0]))]
        for i, j in {cells[0], cells[-1], *pick.sample(cells, min(40, len(cells)))}:
            row, value = block[i], block[i][j]
            row[j] = value + h
            up = gradients(params, batch)[0]
            row[j] = value - h
            down = gradients(params, batch)[0]
            row[j] = value
            assert abs((up - down) / (2 * h) - grad[i][j]) <= 1e-6, (i, j)


def test_forward_attention_rows_are_causal_softmax_rows():
    trace = forward(init_params(random.Random(2)), [0, 1, 2, 3, 4, 5])
    for layer in trace.weights:
        for i, row in enumerate(layer[0]):
            assert abs(sum(row) - 1) < 1e-12 and all(w == 0 for w in row[i + 1:])


# --- probes, worked by hand ---------------------------------------------------------------------

def test_previous_token_score_of_a_hand_built_pattern():
    """Rows 1..3 put 1.0, 0.5, 0.25 on the token before: (1.0 + 0.5 + 0.25) / 3 = 0.5833..."""
    weights = [[1.0, 0.0, 0.0, 0.0],
               [1.0, 0.0, 0.0, 0.0],
               [0.2, 0.5, 0.3, 0.0],
               [0.25, 0.25, 0.25, 0.25]]
    assert previous_token_score(weights) == pytest.approx(1.75 / 3)


def test_induction_score_of_a_hand_built_pattern():
    """n = 3, pinned queries 9 and 10; their tokens first occurred at 6 and 7, so the answers sit
    at 7 and 8. Row 9 puts 0.8 on key 7, row 10 puts 0.4 on key 8: (0.8 + 0.4) / 2 = 0.6."""
    weights = [[0.0] * LENGTH for _ in range(LENGTH)]
    weights[9][7], weights[9][9] = 0.8, 0.2
    weights[10][8], weights[10][0] = 0.4, 0.6
    assert induction_score(weights, 3) == pytest.approx(0.6)


def test_predict_returns_every_heads_pattern_and_a_guess_per_position():
    result = predict(trained(0), [3, 1, 4, 0, 2, 5, 0, 2, 5])
    assert len(result["weights"]) == 2 and len(result["weights"][1][0]) == 9
    assert result["predictions"][6:8] == [2, 5]  # the repeat of "0 2 5" continued
    with pytest.raises(ValueError, match="token 1"):
        predict(trained(0), [0, 6])


# --- training -----------------------------------------------------------------------------------

def test_training_is_deterministic_for_a_seed():
    assert train(seed=3, steps=5) == train(seed=3, steps=5)
    assert train(seed=3, steps=5) != train(seed=4, steps=5)


def test_a_callback_returning_false_stops_training():
    seen = []
    train(seed=0, steps=50, callback=lambda step, loss, params: seen.append(step) or step < 4)
    assert seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_seed_reaches_90_percent_held_out_accuracy(seed):
    assert accuracy(trained(seed)) >= 0.90


def test_the_default_seed_reaches_95_percent():
    assert accuracy(trained(0)) >= 0.95


def test_layer_0_becomes_a_previous_token_head():
    assert report(0)[0]["layer"] == 0 and report(0)[0]["previous_token"] >= 0.4


def test_layer_1_becomes_an_induction_head():
    assert report(0)[1]["layer"] == 1 and report(0)[1]["induction"] >= 0.6


def test_ablating_the_previous_token_head_drops_accuracy_below_half():
    assert report(0)[0]["accuracy_ablated"] < 0.5


def test_ablating_the_induction_head_drops_accuracy_below_half():
    assert report(0)[1]["accuracy_ablated"] < 0.5


# --- checkpoints --------------------------------------------------------------------------------

def test_accuracy_survives_rounding_params_to_two_decimals():
    full, rounded = accuracy(trained(0)), accuracy(round_params(trained(0)))
    assert rounded >= 0.95 and abs(full - rounded) <= 0.01


def test_checkpoints_are_small_json_that_turn_back_into_params():
    saved = checkpoints(seed=0, steps=20, count=4)
    assert [c["step"] for c in saved] == [5, 10, 15, 20]
    text = json.dumps(saved)
    assert len(gzip.compress(text.encode())) < 4 * 2500  # ~1.8 KB gzipped per checkpoint
    params = params_from_checkpoint(json.loads(text)[-1])
    assert params == round_params(train(seed=0, steps=20))
    assert evaluate(params)[1] == saved[-1]["accuracy"] or abs(evaluate(params)[1] - saved[-1]["accuracy"]) < 1e-4


# --- the command line ---------------------------------------------------------------------------

def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "mha.training", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(PY)})


def test_cli_json_has_the_documented_keys():
    out = run_cli("--seed", "1", "--steps", "3", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {"seed", "steps", "seconds", "loss", "accuracy", "heads"}
    assert result["seed"] == 1 and result["steps"] == 3
    assert [set(h) for h in result["heads"]] == [{"layer", "head", "previous_token", "induction", "accuracy_ablated"}] * 2


@pytest.mark.parametrize("args", [["--seed", "x"], ["--seed", "0", "--steps", "0"], []])
def test_cli_bad_arguments_are_a_one_line_error_with_exit_code_2(args):
    out = run_cli(*args)
    assert out.returncode == 2 and out.stderr.startswith("error:") and len(out.stderr.splitlines()) == 1
