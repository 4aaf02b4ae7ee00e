"""Checkpoints: a training run as a few small JSON-able snapshots, for a page to replay."""

from .probes import evaluate
from .train import STEPS, train

DECIMALS = 2


def checkpoint_steps(steps, count):
    """count step numbers (counting from 1) spread evenly over a run of steps, the last one included."""
    count = max(1, min(count, steps))
    return sorted({round(steps * (i + 1) / count) for i in range(count)})


def round_params(params, decimals=DECIMALS):
    """params with every number rounded to decimals places (the same nested lists and dicts, new ones);
    decimals None: a copy, every digit kept."""
    def rounded(matrix):
        return [[v if decimals is None else round(v, decimals) for v in row] for row in matrix]
    layers = [[{"qk": rounded(h["qk"]), "ov": rounded(h["ov"])} for h in heads] for heads in params["layers"]]
    return {"layers": layers, "unembed": rounded(params["unembed"])}


def checkpoints(seed=0, steps=STEPS, count=20, sequences=None):
    """Train once; returns count dicts {"step", "loss", "accuracy", "params"}, JSON-able.

    step: steps done (1..steps); loss: that step's batch loss; accuracy: held-out accuracy
    (pinned positions) of the params as trained (a fresh run of that many steps with horizon=steps
    reproduces it: see train.HORIZON); params: rounded to DECIMALS places, but the
    last checkpoint's, which keep every digit, so its numbers can be recomputed from it exactly.
    """
    wanted = set(checkpoint_steps(steps, count))
    saved = []

    def keep(step, loss, params):
        if step + 1 in wanted:
            saved.append({"step": step + 1, "loss": round(loss, 4),
                          "accuracy": round(evaluate(params, sequences)[1], 4), "params": round_params(params, None)})

    train(seed, steps, keep)
    for checkpoint in saved[:-1]:
        checkpoint["params"] = round_params(checkpoint["params"])
    return saved


def params_from_checkpoint(checkpoint):
    """The params of a checkpoint (or of its JSON, parsed), as floats ready for forward() and predict()."""
    def floats(matrix):
        return [[float(v) for v in row] for row in matrix]
    params = checkpoint["params"]
    layers = [[{"qk": floats(h["qk"]), "ov": floats(h["ov"])} for h in heads] for heads in params["layers"]]
    return {"layers": layers, "unembed": floats(params["unembed"])}
