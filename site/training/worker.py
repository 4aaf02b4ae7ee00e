"""Training in the page's second Python (a Web Worker), so the page stays responsive while it runs.

worker.mjs?module=training.worker starts Pyodide with mha and the site's modules and hands each
message to handle(). One message, {"type": "train", "seed", "steps"}, trains a fresh model with
mha.training.train and posts, every figures.training.EVERY steps, a "progress" message: the step,
the batch loss, the accuracy on the first QUICK held-out sequences (for bench/: the page shows one
accuracy, the held-out one, at the end), the frame's trees (as JSON text: the page only draws them)
and the params so far (JSON text: the page probes them after a Stop). At the end it measures the
model on the full held-out set (scores and accuracy for every set of heads switched off) and posts
"done" with the last frame, now showing that held-out accuracy. The page stops a run by
terminating this worker.
"""

import json
import time

import mha.training
from figures import training as fig
from page import dom


def train(seed, steps, post, every=fig.EVERY):
    """Train and post progress, then the measured model; returns the final params."""
    quick = mha.training.held_out(fig.QUICK)
    tokens = fig.parse_sequence(fig.SAMPLE)
    losses = []
    frame = {}
    started = time.perf_counter()

    def report(step, loss, params):
        losses.append(round(loss, 3))
        done = step + 1
        if done % every and done != steps:
            return
        accuracy = mha.training.accuracy(params, quick)  # a data attribute for bench/, not shown: one accuracy
        weights = mha.training.predict(params, tokens)["weights"]   # on screen, the held-out one, at the end
        trees = [fig.frame(done, steps, losses, None, weights, tokens, **{"data-quick-accuracy": accuracy})]
        frame.update(weights=weights)
        post(json.dumps({"type": "progress", "step": done, "steps": steps, "loss": losses[-1],
                         "accuracy": accuracy, "seconds": round(time.perf_counter() - started, 3),
                         "trees": dom.to_json(trees), "params": json.dumps(params)}))

    params = mha.training.train(seed, steps, report)
    post(json.dumps({"type": "measuring"}))
    measured = mha.training.measure(params)
    last = [fig.frame(len(losses), steps, losses, measured["ablated"][0], frame["weights"], tokens)]
    post(json.dumps({"type": "done", "seed": seed, "steps": steps, "params": json.dumps(params),
                     "measured": json.dumps(measured), "trees": dom.to_json(last),
                     "seconds": round(time.perf_counter() - started, 3)}))
    return params


def handle(message_json, post):
    """{"type": "train", "seed", "steps"} from the page; anything else is refused with a "failed" message."""
    message = json.loads(message_json)
    if message.get("type") != "train":
        post(json.dumps({"type": "refused", "reason": f"unknown message {message.get('type')!r}"}))
        return
    train(int(message["seed"]), int(message["steps"]), post)
