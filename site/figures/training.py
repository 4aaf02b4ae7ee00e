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
from mha.training.model import argmax
from page import dom
from page.dom import classes, weight_class

SEED = 0
COUNT = 20                  # checkpoints of the build-time run
LETTERS = "ABCDEF"          # token t is shown as LETTERS[t]
SAMPLE = "BECAFDBCAFDB"     # two random tokens, then CAFDB twice: both heads' diagonals show
REPEAT = "FACEACBA"         # A seen twice, followed by C both times: an exact repeat (harmless)
NEAR = "FACEADBA"           # A followed once by C, once by D: a near-duplicate that diverges
MAX_SEED = 999_999
MAX_STEPS = 3000            # about two minutes in the page's worker
CACHE_VERSION = "4"         # bump when run_data()'s content changes shape
EVERY = 10                  # the worker reports every EVERY steps
QUICK = 32                  # held-out sequences of the worker's progress accuracy (an attribute, not shown)
# What names a head and what counts as learned: mha.training.classify()'s, so the story of a run and the
# many-seed figure (figures/seeds.py) judge every run alike.
PREVIOUS_MIN = mha.training.PREVIOUS_TOKEN_MIN  # a previous-token head's score reaches this
INDUCTION_MIN = mha.training.INDUCTION_MIN      # an induction head's
LEARNED = mha.training.LEARNED_MIN              # held-out accuracy at which a run has learned the task
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

head_names = mha.training.head_names  # [(layer, head), ...] in layer order: the order of every per-head list


def ablation_sets(names):
    """Every set of heads, as the bit mask over names: mask m switches off names[i] when bit i is set."""
    return [{names[i] for i in range(len(names)) if m >> i & 1} for m in range(1 << len(names))]


@functools.cache
def held_out_size():
    """How many sequences mha.training's held-out set has (what the scores are measured on)."""
    return len(mha.training.held_out())


def measure(params, sequences=None, masks=None):
    """What the page shows of a model, measured on the held-out set (or on sequences):
    {"heads": [[layer, head], ...] (head_names), "ablated": [accuracy with mask m's heads off, for every m],
     "scores_off": [[[previous_token, induction] per head] for every m], "scores": scores_off[0],
     "copy": copy_demo()}. Mask m switches off heads[i] when bit i is set; m = 0 is every head on.

    One forward pass per (mask, sequence) gives both the accuracy and the scores: the same sums as
    mha.training.accuracy(params, sequences, ablate) and mha.training.head_scores (the tests check both).
    masks: the masks to measure (None: every one); the others' entries are None. Every mask costs a pass over
    the held-out set, and there are 2^heads of them."""
    training = mha.training
    sequences = training.held_out() if sequences is None else sequences
    names = head_names(params)
    ablated, scores_off = [], []
    for mask, off in enumerate(ablation_sets(names)):
        if masks is not None and mask not in masks:
            ablated.append(None)
            scores_off.append(None)
            continue
        correct = count = 0
        sums = [[0.0, 0.0] for _ in names]
        for tokens, n in sequences:
            trace = training.forward(params, tokens, ablate=off)
            pinned = training.pinned_positions(n)
            correct += sum(argmax(trace.logits[p]) == tokens[p + 1] for p in pinned)
            count += len(pinned)
            for total, (layer, head) in zip(sums, names):
                total[0] += training.previous_token_score(trace.weights[layer][head])
                total[1] += training.induction_score(trace.weights[layer][head], n)
        ablated.append(round(correct / count, 4))
        scores_off.append([[round(a / len(sequences), 4), round(b / len(sequences), 4)] for a, b in sums])
    return {"heads": [list(name) for name in names], "ablated": ablated, "scores_off": scores_off,
            "scores": scores_off[0], "copy": copy_demo(params, names, scores_off[0])}


def single_masks(names):
    """Every head on, and each head alone off: what describe_run() reads, and all an earlier checkpoint keeps."""
    return {0, *(1 << i for i in range(len(names)))}


def mask_of(names, off):
    """The bit mask over names of the heads in off (the index into measure()'s lists)."""
    return sum(1 << i for i, name in enumerate(names) if tuple(name) in off)


def top_head(scores, which, layers=None):
    """(index, score) of the head with the largest score `which` (0 previous-token, 1 induction), among
    the heads whose layer is in layers (all heads when None); scores: [(name, [prev, ind])]."""
    chosen = [(i, s[which]) for i, (name, s) in enumerate(scores) if layers is None or name[0] in layers]
    return max(chosen, key=lambda c: c[1]) if chosen else None


def copy_demo(params, names, scores):
    """At the last A of REPEAT and of NEAR: the top induction head's weight on the letter after each earlier A,
    and the model's guess there with its probability. {"head": index, text: {"weights", "guess", "p"}}."""
    head = top_head(list(zip(names, scores)), 1)[0]
    layer, h = names[head]
    demo = {"head": head}
    for text in (REPEAT, NEAR):
        tokens = parse_sequence(text)
        trace = mha.training.forward(params, tokens)
        row = trace.weights[layer][h][-1]
        probs = mha.softmax(trace.logits[-1])
        guess = argmax(probs)
        demo[text] = {"weights": [round(row[i + 1], 4) for i in range(len(tokens) - 1) if tokens[i] == tokens[-1]],
                      "guess": guess, "p": round(probs[guess], 4)}
    return demo


def _compute(seed, count):
    training = mha.training
    steps = training.STEPS
    wanted = {round(steps * (i + 1) / count) for i in range(count)}
    losses, saved = [], []

    def keep(step, loss, params):
        losses.append(round(loss, 3))
        if step + 1 in wanted:  # measured as trained, not rounded: a reader's run of this seed shows the same
            last = step + 1 == steps  # every set of heads switched off at the last one; each head alone before it
            exact = training.round_params(params, None)  # a copy: Adam goes on changing params
            saved.append({"step": step + 1, "params": exact if last else training.round_params(params),
                          **measure(exact, masks=None if last else single_masks(head_names(exact)))})

    training.train(seed, steps, keep)
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
    "params" (rounded, but the last checkpoint's, which keep every digit), "scores", "ablated"}]} (see measure),
    measured as trained, so a reader who trains the same seed sees the same numbers. Build time only."""
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


MEASURED = ("heads", "scores", "ablated", "scores_off", "copy")  # measure()'s keys


def files():
    """{file name: text} for build.py to write into dist/: training.json, fetched by app/training.py
    once the section comes near; training-frames.json, every frame the page leaves out (a JSON list
    of trees, each hidden, with its data-frame index), fetched and drawn by boot.js."""
    data = run_data()
    public = {**data, "checkpoints": [{k: c[k] for k in ("step", "params", *MEASURED)}
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


def readable_heatmap(weights, tokens, label):
    """heatmap()'s picture with one <rect> per unmasked cell, each naming its exact weight in a <title> (shown on
    hover; boot.js writes it into the probe's readout on hover and on focus, and arrow keys move between cells).
    One tab stop per map: the first cell has tabindex 0, the others -1."""
    n = len(tokens)
    size = MARGIN + n * CELL
    cells = []
    for i, row in enumerate(weights):
        for j in range(i + 1):
            cells.append(["rect", {"class": weight_class(row[j]), "x": MARGIN + j * CELL, "y": MARGIN + i * CELL,
                                   "width": CELL, "height": CELL, "data-q": i, "data-k": j, "role": "img",
                                   "tabindex": 0 if i == j == 0 else -1},
                          ["title", {}, f"{label}: query {i} ({LETTERS[tokens[i]]}) on key {j} "
                                        f"({LETTERS[tokens[j]]}): {row[j]:.4f}"]])
    centres = " ".join(str(MARGIN + j * CELL + CELL // 2) for j in range(n))
    baselines = " ".join(str(MARGIN + i * CELL + CELL - 2) for i in range(n))
    axis = [["text", {"x": centres, "y": MARGIN - 3, "class": "axis", "aria-hidden": "true"}, letters(tokens)],
            ["text", {"x": " ".join([str(MARGIN // 2)] * n), "y": baselines, "class": "axis", "aria-hidden": "true"},
             letters(tokens)]]
    return ["svg", {"viewBox": f"0 0 {size} {size}", "class": "train-map", "role": "group",
                    "aria-label": f"{label}: attention on {letters(tokens)}, one cell per query and key"},
            *cells, *axis]


def weights_table(weights, tokens, label):
    """One head's pattern as a table: a row per query, a column per key, the exact weights to 4 decimals."""
    head = dom.header_row("query \\ key", [f"{j} {LETTERS[t]}" for j, t in enumerate(tokens)])
    rows = [dom.body_row(f"{i} {LETTERS[tokens[i]]}", [["td", {"class": "num"}, f"{w:.4f}" if j <= i else ""]
                                                       for j, w in enumerate(row)])
            for i, row in enumerate(weights)]
    return dom.table(f"{label} weights", label, head, rows, "train-weights")


def head_maps(weights, tokens, what, readable=False):
    """One captioned heatmap per head (weights: [layer][head] n x n); readable: per-cell weights (the probe)."""
    maps = []
    for layer, heads in enumerate(weights):
        for head, rows in enumerate(heads):
            name = head_label(layer, head)
            picture = (readable_heatmap(rows, tokens, name) if readable else
                       heatmap(rows, tokens, f"{name}: attention on {what} {letters(tokens)}"))
            maps.append(["figure", {"class": "train-head"}, picture, ["figcaption", {}, name]])
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


def frame_summary(step, steps, loss, accuracy):
    """A frame's line; accuracy None: a run still training, whose held-out accuracy is measured at its end."""
    shown = (f"held-out accuracy {percent(accuracy)}" if accuracy is not None else
             "held-out accuracy measured at the end")
    return f"Step {step} of {steps}: batch loss {loss:.3f}, {shown}"


def frame(step, steps, losses, accuracy, weights, tokens, **attrs):
    """One moment of a run: the summary line, the loss curve so far, each head on tokens."""
    return ["div", {"class": "train-frame", **attrs},
            ["p", {"class": "train-summary"}, frame_summary(step, steps, losses[-1], accuracy)],
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


def probe(params, tokens, model_name, off=frozenset()):
    """A sequence through a model with the heads in off switched off: every head's pattern (each cell's weight
    readable, and a table view), and each position's guess for the next token."""
    trace = mha.training.forward(params, tokens, ablate=off)
    guesses = [argmax(row) for row in trace.logits]
    head = ["tr", {}, ["th", {"scope": "row"}, "position"],
            *[["th", {"scope": "col"}, str(i)] for i in range(len(tokens))]]
    seq = ["tr", {}, ["th", {"scope": "row"}, "token"], *[["td", {}, LETTERS[t]] for t in tokens]]
    nxt = ["tr", {}, ["th", {"scope": "row"}, "guess next"],
           *[["td", classes("guess", "hit" if i + 1 < len(tokens) and g == tokens[i + 1] else ""), LETTERS[g]]
             for i, g in enumerate(guesses)]]
    caption = model_name + (f", {switched_text(off)} switched off" if off else "")
    table = ["table", {"class": "figure-table train-guesses", "aria-label": "the model's guesses"},
             ["caption", {}, caption],
             ["thead", {}, head], ["tbody", {}, seq, nxt]]
    return [head_maps(trace.weights, tokens, "your sequence", readable=True),
            ["p", {"class": "note train-readout"},
             "Point at a cell, or tab to a square and use the arrow keys, for its exact weight."],
            ["p", {"class": "note"}, "At each position, the letter the model expects next; outlined where the "
                                     "next letter you typed matches it."],
            ["div", {"class": "grid-wrap", "tabindex": 0, "role": "region", "aria-label": "the guesses, scrollable"},
             table]]


def probe_weights(params, tokens, off=frozenset()):
    """fig-probe-weights (inside a <details> of the section's HTML): each head's pattern as a table."""
    weights = mha.training.forward(params, tokens, ablate=off).weights
    return [weights_table(rows, tokens, head_label(layer, h))
            for layer, heads in enumerate(weights) for h, rows in enumerate(heads)]


def switched_text(off):
    return ", ".join(head_label(*n) for n in sorted(off))


def scores_table(measured, names, off, model_name):
    """Per head: its two scores with the heads in off switched off, and the held-out accuracy with it alone
    switched off; then the one accuracy line (with the heads in off switched off)."""
    mask = mask_of(names, off)
    if measured["ablated"][mask] is None:  # an earlier build-time checkpoint keeps each head alone off only
        return [["p", {"class": "note", "id": "train-accuracy"},
                 f"{model_name}: measured with one head off at a time; the last checkpoint and your own runs "
                 f"have every set of heads switched off. The patterns and guesses above leave out "
                 f"{switched_text(off)}."]]
    scores = measured["scores_off"][mask]
    rows = []
    for i, ((layer, head), (prev, ind)) in enumerate(zip(names, scores)):
        rows.append(["tr", {}, ["th", {"scope": "row"}, head_label(layer, head) + (" (off)" if (layer, head) in off
                                                                                   else "")],
                     ["td", {"class": "num"}, f"{prev:.2f}"], ["td", {"class": "num"}, f"{ind:.2f}"],
                     ["td", {"class": "num"}, percent(measured["ablated"][1 << i])]])
    head = ["tr", {}, *[["th", {"scope": "col"}, t] for t in
                        ("head", "previous-token score", "induction score", "accuracy without it")]]
    now = measured["ablated"][mask]
    line = (f"Held-out accuracy with every head on: {percent(now)}." if not off else
            f"Held-out accuracy with {switched_text(off)} switched off: {percent(now)} "
            f"(every head on: {percent(measured['ablated'][0])}).")
    caption = f"{model_name}, measured on {held_out_size()} held-out sequences" + (
        f"; scores with {switched_text(off)} switched off" if off else "")
    return [["table", {"class": "figure-table train-scores-table", "aria-label": "head scores"},
             ["caption", {}, caption],
             ["thead", {}, head], ["tbody", {}, *rows]],
            ["p", {"class": "train-accuracy", "id": "train-accuracy"}, line]]


def switches(names, off, enabled):
    """One checkbox per head: switch it off (its output is not added to the stream)."""
    boxes = [["label", {"class": "control"},
              ["input", {"type": "checkbox", "id": f"train-off-{i}", "data-head": i, "checked": name in off,
                         "disabled": not enabled}],
              " ", head_label(*name)] for i, name in enumerate(names)]
    return [["fieldset", {"class": "train-switches"}, ["legend", {}, "Switch off"], *boxes]]


def capitalised(whose):
    """A run's name at the start of a sentence or a caption: "the build-time run" -> "The build-time run"."""
    return whose[:1].upper() + whose[1:]


# --- what a run formed: the facts every sentence about "your run" is rendered from ---------------

def describe_run(measured):
    """The facts of a measured run (measure()'s dict), for the sentences that describe it:
    {"accuracy", "top_previous": (name, score), "top_induction": (name, score), "named": heads whose previous-token
     or induction score reaches PREVIOUS_MIN or INDUCTION_MIN, as (name, "previous-token" | "induction"),
     "kind": "circuit" (mha.training.classify finds its pair), "stalled" (accuracy below LEARNED), "early" (the
     top induction head, >= INDUCTION_MIN, sits in layer 0) or "other";
     "pair": ((previous-token head, its score), (induction head, its score)) of the circuit, or None (the rules
     are tried in that order); "partner_off": the induction head's induction score with its partner switched off,
     or None; "without": [(name, accuracy with it alone off)];
     "copy": {text: (weights, guess letter, p)} for REPEAT and NEAR, "copy_head": the head those weights are of}.

    The circuit is mha.training.classify()'s verdict, on the same measurements."""
    names = [tuple(n) for n in measured["heads"]]
    scores = list(zip(names, measured["scores"]))
    accuracy = measured["ablated"][0]
    prev_i, prev = top_head(scores, 0)
    ind_i, ind = top_head(scores, 1)
    named = [(name, role) for name, s in scores
             for role, v, least in (("previous-token", s[0], PREVIOUS_MIN), ("induction", s[1], INDUCTION_MIN))
             if v >= least]
    report = [{"layer": name[0], "head": name[1], "previous_token": s[0], "induction": s[1]} for name, s in scores]
    verdict = mha.training.classify(report, accuracy)
    pair = partner_off = None
    if verdict["kind"] == "pair":
        pair = ((names[prev_i], prev), (names[ind_i], ind))
        partner_off = measured["scores_off"][1 << prev_i][ind_i][1]
    kind = ("circuit" if pair else "early" if ind >= INDUCTION_MIN and names[ind_i][0] == 0 else
            "stalled" if accuracy < LEARNED else "other")
    missing = verdict["missing"]
    copy = measured["copy"]
    return {"accuracy": accuracy, "top_previous": (names[prev_i], prev), "top_induction": (names[ind_i], ind),
            "named": named, "kind": kind, "pair": pair, "partner_off": partner_off, "missing": missing,
            "without": [(name, measured["ablated"][1 << i]) for i, name in enumerate(names)],
            "copy_head": names[copy["head"]],
            "copy": {text: (copy[text]["weights"], LETTERS[copy[text]["guess"]], copy[text]["p"])
                     for text in (REPEAT, NEAR)}}


def score(x):
    return f"{x:.2f}"


def story(facts, whose):
    """The sentences about a measured run (whose: "the build-time run", "your run (seed 3, 200 steps)"), each
    rendered from describe_run()'s facts: what it scores, what formed, what each head is worth."""
    (p_name, p), (i_name, i) = facts["top_previous"], facts["top_induction"]
    first = (f"{capitalised(whose)} reaches {percent(facts['accuracy'])} held-out. Top previous-token "
             f"score: {head_label(*p_name)}'s, {score(p)}; top induction score: {head_label(*i_name)}'s, {score(i)}.")
    kind = facts["kind"]
    if kind == "circuit":
        (a, _), (b, _) = facts["pair"]  # what switching a off does to b is section 8's question: not here
        second = (f"Both pass their lines ({PREVIOUS_MIN} and {INDUCTION_MIN}), the previous-token head in an earlier "
                  f"layer ({a[0]}) than the induction head ({b[0]}): it formed the circuit.")
    elif kind == "early":
        second = (f"So no induction head formed after a previous-token head: {head_label(*i_name)} does an "
                  f"induction-like job in layer 0 by itself, with nothing written by an earlier head to read.")
    elif kind == "stalled":
        second = f"No pair formed: {why_no_pair(facts)}; and it is still below {percent(LEARNED)}."
    else:
        name, acc = min(facts["without"], key=lambda pair: pair[1])
        second = (f"No pair formed: {why_no_pair(facts)}. It found another way, leaning most on "
                  f"{head_label(*name)} (without it, {percent(acc)}).")
    without = "; ".join(f"{head_label(*name)} {percent(acc)}" for name, acc in facts["without"])
    return [["p", {}, first, " ", second, f" Accuracy with one head off: {without}."]]


def why_no_pair(facts):
    """classify()'s failed conditions in words: 'the top induction score, 0.798, is under 0.8' (three
    decimals, so a score the sentence above shows as 0.80 is not taken for one that reaches 0.8)."""
    (p_name, p), (i_name, i) = facts["top_previous"], facts["top_induction"]
    reasons = {"previous_token": f"the top previous-token score, {p:.3f}, is under {PREVIOUS_MIN}",
               "induction": f"the top induction score, {i:.3f}, is under {INDUCTION_MIN}",
               "order": f"{head_label(*p_name)} is not in an earlier layer than {head_label(*i_name)}"}
    return " and ".join(reasons[name] for name in facts["missing"])


def copy_story(facts, whose):
    """The id demo for a measured run: REPEAT (an exact repeat) beside NEAR (a near-duplicate that diverges).

    Each guess is said as measured: a run that does not copy C after FACEACBA's last A is said not to."""
    (rw, rg, rp), (nw, ng, np_) = facts["copy"][REPEAT], facts["copy"][NEAR]
    name = head_label(*facts["copy_head"])
    split = " and ".join(score(w) for w in rw)
    repeat = ("so the guess is C" if rg == "C" else f"yet the guess is {rg}, not C: this run does not copy here")
    return [["p", {}, f"In {whose}, {name} (its top induction head) puts {split} on the C after each A in ",
             ["kbd", {}, REPEAT], f": both A's lead to C, {repeat}, with p = {score(rp)}. In ",
             ["kbd", {}, NEAR], f" one A leads to C and one to D: {' and '.join(score(w) for w in nw)}, and "
                                f"{near_verdict(nw, ng, np_)}."]]


COIN_TOSS = 0.75  # a guess below this probability, between two continuations, is called a coin toss
FOLLOWS = {"C": "earlier", "D": "later"}  # in NEAR (FACEADBA), the letter after the first A and after the second


def near_verdict(weights, guess, p):
    """The end of the sentence on NEAR, from its measurements: a coin toss, which A's continuation won, or neither.

    weights: the copying head's weight on the C and on the D (said before this, in copy_story)."""
    if p < COIN_TOSS:
        return f"the guess is {guess} with p = {score(p)}, close to a coin toss"
    if guess not in FOLLOWS:
        return f"the guess is {guess} with p = {score(p)}, neither A's continuation"
    return f"the guess is {guess} with p = {score(p)}: the {FOLLOWS[guess]} A wins, whichever id was meant"


def unmeasured(whose):
    return [["p", {}, f"{capitalised(whose)} is not measured yet: what it formed is measured on the held-out set "
                      f"when training ends."]]


def run_name(data, index):
    step = data["checkpoints"][index]["step"]
    return "the build-time run" if step == data["steps"] else f"the build-time run at step {step}"


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
                 capitalised(run_name(data, last)))


def _build_probe_weights(state, view, before):
    data, last = _default()
    return probe_weights(mha.training.params_from_checkpoint(data["checkpoints"][last]), parse_sequence(SAMPLE))


def _build_scores(state, view, before):
    data, last = _default()
    return scores_table(data["checkpoints"][last], head_names(data["checkpoints"][last]["params"]), set(),
                        capitalised(run_name(data, last)))


def _build_switches(state, view, before):
    data, last = _default()
    return switches(head_names(data["checkpoints"][last]["params"]), set(), enabled=False)


def _build_story(state, view, before):
    data, last = _default()
    return story(describe_run(data["checkpoints"][last]), run_name(data, last))


def _build_copy(state, view, before):
    data, last = _default()
    return copy_story(describe_run(data["checkpoints"][last]), run_name(data, last))


# --- numbers in the prose -----------------------------------------------------------------

def _final():
    data, last = _default()
    return data["checkpoints"][last]


def _params_count():
    return f"{mha.training.count_params(mha.training.params_from_checkpoint(_final())):,}"


def _heads_text():
    """"1 head in layer 0 and 1 in layer 1", from the build-time model's params."""
    counts = [len(heads) for heads in _final()["params"]["layers"]]
    parts = [f"{c} {'head' if c == 1 else 'heads'} in layer {i}" if i == 0 else f"{c} in layer {i}"
             for i, c in enumerate(counts)]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


PROSE = {
    "train-letters": lambda: f"{LETTERS[0]} to {LETTERS[mha.training.VOCAB - 1]}",
    "train-length": lambda: str(mha.training.LENGTH),
    "train-width": lambda: str(mha.training.WIDTH),
    "train-layers": lambda: str(len(_final()["params"]["layers"])),
    "train-heads": _heads_text,
    "train-params": _params_count,
    "train-steps": lambda: str(run_data()["steps"]),
    "train-count": lambda: str(COUNT),
    "train-chance": lambda: percent(1 / mha.training.VOCAB),
    "train-threshold-previous": lambda: str(PREVIOUS_MIN),
    "train-threshold-induction": lambda: str(INDUCTION_MIN),
    "train-lr-first": lambda: f"{mha.training.learning_rate(0, 2):g}",
    "train-lr-last": lambda: f"{mha.training.learning_rate(1, 2):g}",
}

FIGURES = {
    "fig-train-slider": Figure(_build_slider),
    "fig-train-frames": Figure(_build_frames),
    "fig-probe": Figure(_build_probe),
    "fig-train-scores": Figure(_build_scores),
    "fig-train-switches": Figure(_build_switches),
    "fig-probe-weights": Figure(_build_probe_weights),
    "fig-train-story": Figure(_build_story),
    "fig-train-copy": Figure(_build_copy),
}
