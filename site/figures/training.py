"""The trained model's section ("Heads nobody designed"): its build-time run, and the trees that show it.

- run_data(): the default seed trained once at build time by mha.training (the same code the
  page's worker and code cell run), 20 checkpoints of rounded params; per checkpoint its
  held-out accuracy with every set of heads switched off, and each head's scores. Computed once
  per build (cached in this module, and on disk in .cache/ keyed by mha.training's source).
- files(): {name: text} for build.py to write into dist/: training.json (what the page's Python
  needs to probe a checkpoint) and training-frames.json (the frames below that the page does not
  carry); neither is fetched at start-up.
- fig-train-slider, fig-train-frames: the step slider (its data-labels name every checkpoint's
  step) and one frame per checkpoint (loss curve up to that step, accuracy, each head's attention
  on SAMPLE). Only the chosen frame is pre-rendered into the page: the others, the same trees, go
  into training-frames.json, which boot.js fetches and draws (hidden) when the section comes near
  or the slider is touched; boot.js shows the frame the slider chose, so scrubbing works before
  Python has loaded, and without it.
- fig-probe, fig-train-scores, fig-train-switches: a sequence's patterns and predictions, the
  scores table and the head switches, for the model that training/state.py says is chosen.

Every number comes from mha.training; this module arranges them. Tokens are shown as letters.
"""

import functools
import json
import os
from pathlib import Path

import mha
import mha.training
from figures.registry import Figure
from page import dom
from page.dom import classes, weight_class

SEED = 0
COUNT = 20                  # checkpoints of the build-time run
LETTERS = "ABCDEF"          # token t is shown as LETTERS[t]
SAMPLE = "BECAFDBCAFDB"     # two random tokens, then CAFDB twice: both heads' diagonals show
SPLIT = "FACEADBA"          # A was followed by C and by D: layer 1 splits its weight at the last A
UNIQUE = "FBCEADBA"         # A occurred once before, followed by D: one place to look
TILTED = "BACEADBA"         # SPLIT with its first letter changed: the split tilts
MAX_SEED = 999_999
MAX_STEPS = 3000            # about two minutes in the page's worker
CACHE_VERSION = "1"         # bump when run_data()'s content changes shape
EVERY = 10                  # the worker reports every EVERY steps
QUICK = 32                  # held-out sequences the worker's progress accuracy uses (the full set at the end)
FRAMES_FILE = "training-frames.json"  # the checkpoint frames the page does not carry (boot.js fetches it)


# --- tokens as letters ----------------------------------------------------------------

def letters(tokens):
    return "".join(LETTERS[t] for t in tokens)


def parse_sequence(text):
    """What a reader typed -> tokens: letters A-F (any case; spaces and commas ignored), 1 to 12 of them."""
    typed = [c for c in text if c not in " ,\t\n"]
    if not typed:
        return _refuse("The sequence is empty: type up to 12 letters from A to F, e.g. BECAFDBCAFDB.")
    for i, c in enumerate(typed):
        if c.upper() not in LETTERS:
            return _refuse(f"{c!r} (letter {i + 1}) is not one of the model's tokens: use A, B, C, D, E or F.")
    if len(typed) > mha.training.LENGTH:
        return _refuse(f"{len(typed)} letters is too many: the model reads at most {mha.training.LENGTH} tokens.")
    return [LETTERS.index(c.upper()) for c in typed]


def _refuse(sentence):
    raise ValueError(sentence)


def parse_steps(text):
    """How many steps to train, from a field's text: a whole number from 1 to MAX_STEPS."""
    return mha.parse_count(text, "steps", 1, MAX_STEPS)


def parse_seed(text):
    """The training seed from a field's text: a whole number from 0 to MAX_SEED."""
    return mha.parse_count(text, "seed", 0, MAX_SEED)


# --- the build-time run -----------------------------------------------------------------

def head_names(params):
    """[(layer, head), ...] in layer order: the order of every per-head list here."""
    return [(layer, head) for layer, heads in enumerate(params["layers"]) for head in range(len(heads))]


def ablation_sets(names):
    """Every set of heads, as the bit mask over names: mask m switches off names[i] when bit i is set."""
    return [{names[i] for i in range(len(names)) if m >> i & 1} for m in range(1 << len(names))]


@functools.cache
def held_out_size():
    """How many sequences mha.training's held-out set has (what the scores are measured on)."""
    return len(mha.training.held_out())


def measure(params, sequences=None):
    """What the page shows of a model: {"scores": [[previous_token, induction] per head],
    "ablated": [held-out accuracy with mask m's heads off, for every m]} (ablated[0]: all heads on)."""
    scores = [[round(s["previous_token"], 4), round(s["induction"], 4)]
              for s in mha.training.head_scores(params, sequences)]
    ablated = [round(mha.training.accuracy(params, sequences, ablate=off), 4)
               for off in ablation_sets(head_names(params))]
    return {"scores": scores, "ablated": ablated}


def _compute(seed, count):
    training = mha.training
    steps = training.STEPS
    wanted = {round(steps * (i + 1) / count) for i in range(count)}
    losses, saved = [], []

    def keep(step, loss, params):
        losses.append(round(loss, 3))
        if step + 1 in wanted:
            saved.append({"step": step + 1, "params": training.round_params(params)})

    training.train(seed, steps, keep)
    for checkpoint in saved:
        checkpoint.update(measure(training.params_from_checkpoint(checkpoint)))
    return {"seed": seed, "steps": steps, "losses": losses, "checkpoints": saved}


def _cache_path(seed, count):
    """.cache/training-<hash>.json, the hash over mha.training's source: a changed module retrains."""
    import hashlib  # build time only: importing it costs the page's start about 10 ms in Pyodide
    root = Path(__file__).resolve().parents[2]
    source = root / "py" / "mha" / "training"
    if not source.is_dir():
        return None
    digest = hashlib.sha256(f"{CACHE_VERSION} {seed} {count}".encode())
    for path in sorted(source.glob("*.py")) + sorted((root / "py" / "mha").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return root / ".cache" / f"training-{digest.hexdigest()[:16]}.json"


@functools.cache
def run_data(seed=SEED, count=COUNT):
    """The build-time run: {"seed", "steps", "losses": every step's batch loss, "checkpoints": [{"step",
    "params" (rounded), "scores", "ablated"}]} (see measure). Build time only: a few seconds of training."""
    path = _cache_path(seed, count)
    if path is not None and path.is_file():
        return json.loads(path.read_text())
    data = _compute(seed, count)
    if path is not None:
        path.parent.mkdir(exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")  # builds running side by side: rename is atomic
        partial.write_text(json.dumps(data, separators=(",", ":")))
        partial.replace(path)
    return data


def files():
    """{file name: text} for build.py to write into dist/: training.json, fetched by app/training.py
    once the section comes near; training-frames.json, every frame the page leaves out (a JSON list
    of trees, each hidden, with its data-frame index), fetched and drawn by boot.js."""
    data = run_data()
    public = {**data, "checkpoints": [{k: c[k] for k in ("step", "params", "scores", "ablated")}
                                      for c in data["checkpoints"]]}
    return {"training.json": json.dumps(public, separators=(",", ":")),
            FRAMES_FILE: dom.to_json(other_frames(*_default()))}


def checkpoint_weights(checkpoint, tokens):
    """Every head's pattern on tokens, for a checkpoint's rounded params: [layer][head] n x n."""
    return mha.training.predict(mha.training.params_from_checkpoint(checkpoint), tokens)["weights"]


# --- trees: a head's pattern, the loss curve, a frame -------------------------------------

CELL = 10          # viewBox units per heatmap cell
MARGIN = 12        # room for the letters on the left and the top


def head_label(layer, head):
    return f"layer {layer} head {head}"


def heatmap(weights, tokens, label):
    """<svg role=img> of one head's n x n pattern: row i = the query at position i, column j = the key at j.

    Cells are grouped by weight bucket (w0..w9) into one <path> each, so 144 cells are at most 10 elements;
    the positions above the diagonal (the causal mask) are left empty.
    """
    n = len(tokens)
    size = MARGIN + n * CELL
    buckets = {}
    for i, row in enumerate(weights):
        for j in range(i + 1):
            x, y = MARGIN + j * CELL, MARGIN + i * CELL
            buckets.setdefault(weight_class(row[j]), []).append(f"M{x} {y}h{CELL}v{CELL}h-{CELL}z")
    paths = [["path", {"class": bucket, "d": "".join(cells)}] for bucket, cells in sorted(buckets.items())]
    centres = " ".join(str(MARGIN + j * CELL + CELL // 2) for j in range(n))  # one x (or y) per letter
    baselines = " ".join(str(MARGIN + i * CELL + CELL - 2) for i in range(n))
    axis = [["text", {"x": centres, "y": MARGIN - 3, "class": "axis"}, letters(tokens)],
            ["text", {"x": " ".join([str(MARGIN // 2)] * n), "y": baselines, "class": "axis"}, letters(tokens)]]
    return ["svg", {"viewBox": f"0 0 {size} {size}", "class": "train-map", "role": "img", "aria-label": label},
            *paths, *axis]


def head_maps(weights, tokens, what):
    """One captioned heatmap per head (weights: [layer][head] n x n)."""
    maps = []
    for layer, heads in enumerate(weights):
        for head, rows in enumerate(heads):
            name = head_label(layer, head)
            maps.append(["figure", {"class": "train-head"},
                         heatmap(rows, tokens, f"{name}: attention on {what} {letters(tokens)}"),
                         ["figcaption", {}, name]])
    return ["div", {"class": "train-heads"}, *maps]


LOSS_W, LOSS_H, LOSS_TOP = 300, 90, 2.5   # the chart's viewBox, and the loss at its top edge
CURVE_POINTS = 200                        # at most this many points on a whole run's curve


def loss_curve(losses, steps):
    """<svg> of the batch loss at each step so far, on axes for the whole run (0..steps, 0..LOSS_TOP)."""
    left, bottom = 26, LOSS_H - 14
    def x(step):
        return round(left + (LOSS_W - left - 4) * step / steps, 1)

    def y(loss):
        return round(bottom - (bottom - 4) * min(loss, LOSS_TOP) / LOSS_TOP, 1)
    stride = max(1, steps // CURVE_POINTS)
    points = " ".join(f"{x(s + 1)},{y(v)}" for s, v in enumerate(losses)
                      if (s + 1) % stride == 0 or s == len(losses) - 1)
    shown = f"batch loss over {len(losses)} of {steps} steps" + (f", now {losses[-1]:.3f}" if losses else "")
    return ["svg", {"viewBox": f"0 0 {LOSS_W} {LOSS_H}", "class": "train-loss", "role": "img", "aria-label": shown},
            ["line", {"class": "frame", "x1": left, "y1": 4, "x2": left, "y2": bottom}],
            ["line", {"class": "frame", "x1": left, "y1": bottom, "x2": LOSS_W - 4, "y2": bottom}],
            ["text", {"class": "axis", "x": left - 3, "y": 10, "text-anchor": "end"}, f"{LOSS_TOP:g}"],
            ["text", {"class": "axis", "x": left - 3, "y": bottom, "text-anchor": "end"}, "0"],
            ["text", {"class": "axis", "x": left, "y": LOSS_H - 2}, "step 0"],
            ["text", {"class": "axis", "x": LOSS_W - 4, "y": LOSS_H - 2, "text-anchor": "end"}, str(steps)],
            ["text", {"class": "axis", "x": LOSS_W - 4, "y": 10, "text-anchor": "end"}, "batch loss"],
            *([["polyline", {"class": "curve", "points": points}]] if points else [])]


def percent(x):
    return f"{100 * x:.1f}%"


def frame_summary(step, steps, loss, accuracy, accuracy_of="held-out"):
    return f"Step {step} of {steps}: batch loss {loss:.3f}, {accuracy_of} accuracy {percent(accuracy)}"


def frame(step, steps, losses, accuracy, weights, tokens, accuracy_of="held-out", **attrs):
    """One moment of a run: the summary line, the loss curve so far, each head on tokens."""
    return ["div", {"class": "train-frame", **attrs},
            ["p", {"class": "train-summary"}, frame_summary(step, steps, losses[-1], accuracy, accuracy_of)],
            ["div", {"class": "train-panels"}, loss_curve(losses, steps),
             head_maps(weights, [int(t) for t in tokens], "the sample")]]


def step_text(step, steps):
    return f"step {step} of {steps}"


# --- the section's figures at build time -------------------------------------------------

def slider(data, chosen):
    """The labelled range input over the checkpoints, and the step it stands for."""
    points = data["checkpoints"]
    labels = [step_text(c["step"], data["steps"]) for c in points]  # boot.js names a frame not drawn yet
    return [["label", {"for": "train-step", "class": "control"}, "Checkpoint"],
            ["input", {"type": "range", "id": "train-step", "min": 0, "max": len(points) - 1, "step": 1,
                       "value": chosen, "aria-valuetext": labels[chosen], "data-labels": "|".join(labels)}],
            ["output", {"id": "train-step-text", "for": "train-step"}, labels[chosen]]]


def checkpoint_frame(data, index, hidden):
    """Checkpoint index's frame: its loss curve so far, its accuracy, each head's attention on SAMPLE."""
    c, tokens = data["checkpoints"][index], parse_sequence(SAMPLE)
    return frame(c["step"], data["steps"], data["losses"][:c["step"]], c["ablated"][0],
                 checkpoint_weights(c, tokens), tokens, hidden=hidden,
                 **{"data-frame": index, "data-label": step_text(c["step"], data["steps"])})


def shown_frame(data, chosen):
    """fig-train-frames' children in the page: the chosen checkpoint's frame alone."""
    return [checkpoint_frame(data, chosen, hidden=False)]


def other_frames(data, chosen):
    """Every other checkpoint's frame, hidden, in checkpoint order: training-frames.json."""
    return [checkpoint_frame(data, i, hidden=True) for i in range(len(data["checkpoints"])) if i != chosen]


def probe(params, tokens, model_name):
    """A sequence through a model: every head's pattern, and each position's guess for the next token."""
    result = mha.training.predict(params, tokens)
    guesses = result["predictions"]
    head = ["tr", {}, ["th", {"scope": "row"}, "position"],
            *[["th", {"scope": "col"}, str(i)] for i in range(len(tokens))]]
    seq = ["tr", {}, ["th", {"scope": "row"}, "token"], *[["td", {}, LETTERS[t]] for t in tokens]]
    nxt = ["tr", {}, ["th", {"scope": "row"}, "guess for the next"],
           *[["td", classes("guess", "hit" if i + 1 < len(tokens) and g == tokens[i + 1] else ""), LETTERS[g]]
             for i, g in enumerate(guesses)]]
    table = ["table", {"class": "figure-table train-guesses", "aria-label": "the model's guesses"},
             ["caption", {}, model_name],
             ["thead", {}, head], ["tbody", {}, seq, nxt]]
    return [head_maps(result["weights"], tokens, "your sequence"),
            ["p", {"class": "note"}, "At each position, the letter the model expects next; outlined where the "
                                     "next letter you typed matches it."],
            ["div", {"class": "grid-wrap", "tabindex": 0, "role": "region", "aria-label": "the guesses, scrollable"},
             table]]


def scores_table(measured, names, off, model_name):
    """Per head: its two scores and the held-out accuracy with it switched off; then the accuracy now."""
    rows = []
    for i, ((layer, head), (prev, ind)) in enumerate(zip(names, measured["scores"])):
        rows.append(["tr", {}, ["th", {"scope": "row"}, head_label(layer, head)],
                     ["td", {"class": "num"}, f"{prev:.2f}"], ["td", {"class": "num"}, f"{ind:.2f}"],
                     ["td", {"class": "num"}, percent(measured["ablated"][1 << i])]])
    head = ["tr", {}, *[["th", {"scope": "col"}, t] for t in
                        ("head", "previous-token score", "induction score", "accuracy without it")]]
    mask = sum(1 << i for i, name in enumerate(names) if name in off)
    now = measured["ablated"][mask]
    switched = ", ".join(head_label(*n) for n in names if n in off)
    line = (f"Held-out accuracy with every head on: {percent(now)}." if not off else
            f"Held-out accuracy with {switched} switched off: {percent(now)} "
            f"(every head on: {percent(measured['ablated'][0])}).")
    return [["table", {"class": "figure-table train-scores-table", "aria-label": "head scores"},
             ["caption", {}, f"{model_name}, measured on {held_out_size()} held-out sequences"],
             ["thead", {}, head], ["tbody", {}, *rows]],
            ["p", {"class": "train-accuracy", "id": "train-accuracy"}, line]]


def switches(names, off, enabled):
    """One checkbox per head: switch it off (its output is not added to the stream)."""
    boxes = [["label", {"class": "control"},
              ["input", {"type": "checkbox", "id": f"train-off-{i}", "data-head": i, "checked": name in off,
                         "disabled": not enabled}],
              " ", head_label(*name)] for i, name in enumerate(names)]
    return [["fieldset", {"class": "train-switches"}, ["legend", {}, "Switch off"], *boxes]]


def checkpoint_name(data, index):
    return f"The build-time model at {step_text(data['checkpoints'][index]['step'], data['steps'])}"


def _default():
    data = run_data()
    return data, len(data["checkpoints"]) - 1


def _build_slider(state, view, before):
    return slider(*_default())


def _build_frames(state, view, before):
    return shown_frame(*_default())


def _build_probe(state, view, before):
    data, last = _default()
    return probe(mha.training.params_from_checkpoint(data["checkpoints"][last]), parse_sequence(SAMPLE),
                 checkpoint_name(data, last))


def _build_scores(state, view, before):
    data, last = _default()
    return scores_table(data["checkpoints"][last], head_names(data["checkpoints"][last]["params"]), set(),
                        checkpoint_name(data, last))


def _build_switches(state, view, before):
    data, last = _default()
    return switches(head_names(data["checkpoints"][last]["params"]), set(), enabled=False)


# --- numbers in the prose -----------------------------------------------------------------

def _final():
    data, last = _default()
    return data["checkpoints"][last]


def first_step_above(threshold):
    """The first checkpoint step whose held-out accuracy reaches threshold."""
    data = run_data()
    return next(c["step"] for c in data["checkpoints"] if c["ablated"][0] >= threshold)


def early_checkpoint():
    """The last checkpoint still below 50% held-out accuracy (the plateau before the circuit forms)."""
    return [c for c in run_data()["checkpoints"] if c["ablated"][0] < 0.5][-1]


def follower_weights(text):
    """At the last position of text, layer 1's weight on the token after each earlier occurrence of the
    last token (final checkpoint), in order: what an induction head has to choose between."""
    tokens = parse_sequence(text)
    row = checkpoint_weights(_final(), tokens)[-1][0][-1]
    return [row[i + 1] for i in range(len(tokens) - 1) if tokens[i] == tokens[-1]]


def _params_count():
    return f"{mha.training.count_params(mha.training.params_from_checkpoint(_final())):,}"


PROSE = {
    "train-vocab": lambda: str(mha.training.VOCAB),
    "train-letters": lambda: f"{LETTERS[0]} to {LETTERS[mha.training.VOCAB - 1]}",
    "train-length": lambda: str(mha.training.LENGTH),
    "train-width": lambda: str(mha.training.WIDTH),
    "train-params": _params_count,
    "train-steps": lambda: str(run_data()["steps"]),
    "train-count": lambda: str(COUNT),
    "train-final-accuracy": lambda: percent(_final()["ablated"][0]),
    "train-step-90": lambda: str(first_step_above(0.9)),
    "train-early-step": lambda: str(early_checkpoint()["step"]),
    "train-early-accuracy": lambda: percent(early_checkpoint()["ablated"][0]),
    "train-previous-score": lambda: f"{_final()['scores'][0][0]:.2f}",
    "train-induction-score": lambda: f"{_final()['scores'][1][1]:.2f}",
    "train-without-previous": lambda: percent(_final()["ablated"][1]),
    "train-without-induction": lambda: percent(_final()["ablated"][2]),
    "train-split-first": lambda: f"{follower_weights(SPLIT)[0]:.2f}",
    "train-split-second": lambda: f"{follower_weights(SPLIT)[1]:.2f}",
    "train-tilted-first": lambda: f"{follower_weights(TILTED)[0]:.2f}",
    "train-tilted-second": lambda: f"{follower_weights(TILTED)[1]:.2f}",
    "train-unique-weight": lambda: f"{follower_weights(UNIQUE)[0]:.2f}",
}

FIGURES = {
    "fig-train-slider": Figure(_build_slider),
    "fig-train-frames": Figure(_build_frames),
    "fig-probe": Figure(_build_probe),
    "fig-train-scores": Figure(_build_scores),
    "fig-train-switches": Figure(_build_switches),
}
