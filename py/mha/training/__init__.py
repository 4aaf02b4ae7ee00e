"""Heads you can train and then probe: a two-layer attention-only model that learns induction.

Vocabulary as in mha: tokens, queries, keys, values, heads, weights. Here
the head width is the whole residual stream (18: one-hot token, one-hot
position), and each head is two 18 x 18 matrices, W_QK and W_OV; HEADS = (2, 2).

    params = train(seed=0)                      # 800 Adam steps (95% held-out at step 300)
    accuracy(params)                            # held-out, pinned positions only
    report = head_report(params)                # per head: previous-token and induction scores, ablation
    classify(report, accuracy(params))          # which head does what, and whether they pair up
    composition(params)                         # layer 1's induction scores with each layer-0 head off
    predict(params, [3, 1, 4, 1, 5, 0, 2, 5, 0, 2, 5, 0], ablate={(0, 0)})  # patterns, probabilities, guesses

Modules: task (sequences), model (forward), gradients (backward by hand),
adam, train, probes, roles (classify), checkpoints, measure (what the page shows). Standard library only.
"""

from .task import LENGTH, VOCAB, held_out, make_batch, make_sequence, pinned_positions
from .model import HEADS, WIDTH, count_params, forward, init_params
from .gradients import gradients
from .adam import adam_step, learning_rate
from .train import BATCH, HORIZON, STEPS, train
from .probes import (accuracy, composition, evaluate, even_rows, head_names, head_report, head_scores, induction_score,
                     predict, previous_token_score)
from .roles import INDUCTION_MIN, LEARNED_MIN, PREVIOUS_TOKEN_MIN, classify, missing_conditions, pattern_change
from .checkpoints import checkpoints, params_from_checkpoint, round_params
from .measure import (NEAR, REPEAT, SINK, ablation_sets, first_token_rows, first_token_weight, fresh_positions,
                      mask_of, measure, single_masks)

__all__ = (
    "LENGTH", "VOCAB", "held_out", "make_batch", "make_sequence", "pinned_positions",
    "HEADS", "WIDTH", "count_params", "forward", "init_params", "gradients", "adam_step",
    "learning_rate", "BATCH", "HORIZON", "STEPS", "train", "accuracy", "evaluate", "head_report",
    "head_scores", "head_names", "composition", "classify", "missing_conditions", "pattern_change", "PREVIOUS_TOKEN_MIN", "INDUCTION_MIN", "LEARNED_MIN",
    "induction_score", "even_rows", "predict", "previous_token_score", "checkpoints",
    "params_from_checkpoint", "round_params", "NEAR", "REPEAT", "ablation_sets", "fresh_positions",
    "first_token_weight", "first_token_rows", "SINK", "mask_of", "measure", "single_masks",
)
