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
import time
from pathlib import Path

import mha
import mha.training
from figures import seeds
from figures.registry import Figure
from mha.training.model import argmax
from page import dom
from figures.heatmap import CELL, MARGIN, heat_map
from page.dom import apart, beside, classes

SEED = 0
COUNT = 20                  # checkpoints of the build-time run
LETTERS = "ABCDEF"          # token t is shown as LETTERS[t]
SAMPLE = "BECAFDBCAFDB"     # two random tokens, then CAFDB twice: both heads' diagonals show
MAX_SEED = 999_999
MAX_STEPS = 3000            # about two minutes in the page's worker
CACHE_VERSION = "6"         # bump when run_data()'s content changes shape
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


REPEAT = letters(mha.training.REPEAT)  # FACEACBA: A seen twice, followed by C both times (an exact repeat)
NEAR = letters(mha.training.NEAR)      # FACEADBA: A followed once by C, once by D (a near-duplicate that diverges)


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


single_masks = mha.training.single_masks
mask_of = mha.training.mask_of


@functools.cache
def held_out_size():
    """How many sequences mha.training's held-out set has (what the scores are measured on)."""
    return len(mha.training.held_out())


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
                          **mha.training.measure(exact, masks=None if last else single_masks(head_names(exact)))})

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
    if path is None:
        return _compute(seed, count)
    path.parent.mkdir(exist_ok=True)
    while not path.is_file():
        if not _take(path.with_suffix(".lock")):  # another process is training this run: wait for its file
            time.sleep(0.5)
            continue
        try:
            partial = path.with_suffix(f".{os.getpid()}.part")  # rename is atomic: no reader sees half a file
            partial.write_text(json.dumps(_compute(seed, count), separators=(",", ":")))
            partial.replace(path)
        finally:
            path.with_suffix(".lock").unlink(missing_ok=True)
    return json.loads(path.read_text())


def _take(lock):
    """Create LOCK with this process's pid, or find it held by a live process (False). A lock left by a
    process that died is taken over. Why: the build and the tests (two pytest-xdist workers) ask for the
    run side by side on a clean clone, and each trained it, a minute of CPU twice over on two cores."""
    try:
        descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            holder = lock.read_text()
            if not holder.isdigit():
                return False  # its pid is being written (or it was just released): look again
            os.kill(int(holder), 0)
            return False
        except FileNotFoundError:  # just released
            return _take(lock)
        except ProcessLookupError:  # its process died before it wrote the run
            lock.unlink(missing_ok=True)
            return _take(lock)
        except PermissionError:  # alive, another user's
            return False
    with os.fdopen(descriptor, "w") as file:
        file.write(str(os.getpid()))
    return True


MEASURED = ("heads", "scores", "ablated", "scores_off", "first_token")  # measure()'s keys


def files():
    """{file name: text} for build.py to write into dist/: training.json, fetched by app/training.py
    once the section comes near; training-frames.json, every frame the page leaves out (a JSON list
    of trees, each hidden, with its data-frame index), fetched and drawn by boot.js."""
    data = run_data()
    public = {**data, "checkpoints": [{k: c[k] for k in ("step", "params", *MEASURED)}
                                      for c in data["checkpoints"]]}
    public["seeds"] = seeds.sweep()  # the many-seed figure's rows: the page marks the reader's own run among them
    return {"training.json": json.dumps(public, separators=(",", ":")),
            FRAMES_FILE: dom.to_json(other_frames(*_default()))}


def checkpoint_weights(checkpoint, tokens):
    """Every head's pattern on tokens, for a checkpoint's rounded params: [layer][head] n x n."""
    return mha.training.predict(mha.training.params_from_checkpoint(checkpoint), tokens)["weights"]


# --- trees: a head's pattern, the loss curve, a frame -------------------------------------

def head_label(layer, head):
    return f"layer {layer} head {head}"


MAP_SIDE = MARGIN + mha.training.LENGTH * 12  # px: a map of the longest sequence, 12 px a cell (two a row on a phone)


def map_cell(n):
    """px a cell of an n-token map: the same square for any length, never under heatmap.CELL."""
    return max(CELL, (MAP_SIDE - MARGIN) // n)


def heatmap(weights, tokens, label, readable=False, name=None):
    """One head's n x n pattern (heatmap.heat_map): row i = the query at position i, column j = the key at j,
    nothing above the diagonal (the causal mask). readable: a <rect> per cell names its exact weight in a <title>
    (shown on hover; boot.js writes it into the probe's readout on hover and on focus, and arrow keys move between
    cells), one tab stop per map (the first cell), each title starting with the head's name (name, else label)."""
    shown, name = letters(tokens), name or label
    rows = range(len(tokens)) if readable else ()
    return heat_map(weights, shown, shown, label, cell=map_cell(len(tokens)), readable=rows,
                    describe=lambda i, j: f"{name}: query {i} ({shown[i]}) on key {j} ({shown[j]}): {weights[i][j]:.4f}")


def weights_table(weights, tokens, label):
    """One head's pattern as a table: a row per query, a column per key, the exact weights to 4 decimals."""
    head = dom.header_row("query \\ key", [f"{j} {LETTERS[t]}" for j, t in enumerate(tokens)])
    rows = [dom.body_row(f"{i} {LETTERS[tokens[i]]}", [["td", {"class": "num"}, f"{w:.4f}" if j <= i else ""]
                                                       for j, w in enumerate(row)])
            for i, row in enumerate(weights)]
    return dom.table(f"{label} weights", label, head, rows, "train-weights")


def head_maps(weights, tokens, what, readable=False, off=frozenset()):
    """One captioned heatmap per head (weights: [layer][head] n x n); readable: per-cell weights (the probe).
    A head in off is drawn faded, and its caption says it is off: its pattern is computed, its output not added."""
    maps = []
    for layer, heads in enumerate(weights):
        for head, rows in enumerate(heads):
            name = head_label(layer, head)
            gone = (layer, head) in off
            label = name + (" (off)" if gone else "")
            picture = (heatmap(rows, tokens, f"{label}: attention on {letters(tokens)}, one cell per query and key",
                               readable=True, name=label) if readable else
                       heatmap(rows, tokens, f"{label}: attention on {what} {letters(tokens)}"))
            maps.append(["figure", classes("train-head", "off" if gone else ""), picture,
                         ["figcaption", {}, label]])
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
    """A frame's line; accuracy None: a run still training (or stopped), measured only if it reaches its end."""
    shown = (f"held-out accuracy {percent(accuracy)}" if accuracy is not None else
             "held-out accuracy is measured if the run reaches its last step")
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
    return [head_maps(trace.weights, tokens, "your sequence", readable=True, off=off),
            ["p", {"class": "note train-readout"},
             "Point at or tab to a cell for its weight."],
            ["p", {"class": "note"}, "Under each letter, the model's guess for the next; outlined where right."],
            ["div", {"class": "grid-wrap", "tabindex": 0, "role": "region", "aria-label": "the guesses, scrollable"},
             table]]


def probe_weights(params, tokens, off=frozenset()):
    """fig-probe-weights (inside a <details> of the section's HTML): each head's pattern as a table."""
    weights = mha.training.forward(params, tokens, ablate=off).weights
    return [weights_table(rows, tokens, head_label(layer, h))
            for layer, heads in enumerate(weights) for h, rows in enumerate(heads)]


def switched_text(off):
    return ", ".join(head_label(*n) for n in sorted(off))


def scores_table(measured, names, off, model_name, params=None):
    """Per head: its two scores with the heads in off switched off, and the held-out accuracy with it switched off
    too (a head already off: a row of dashes, class off); then the one accuracy line, and what single heads do (heads_note)."""
    mask = mask_of(names, off)
    if measured["ablated"][mask] is None:  # an earlier build-time checkpoint keeps each head alone off only
        return [["p", {"class": "note", "id": "train-accuracy"},
                 f"{model_name}: measured with one head off at a time; the last checkpoint and your own runs "
                 f"have every set of heads switched off. The patterns and guesses above leave out "
                 f"{switched_text(off)}."]]
    scores = measured["scores_off"][mask]
    rows = []
    for i, ((layer, head), (prev, ind)) in enumerate(zip(names, scores)):
        gone = (layer, head) in off
        cells = (["\u2014"] * 3 if gone else  # off: it adds nothing, so its weights' scores would mislead
                 [f"{prev:.2f}", f"{ind:.2f}", percent(measured["ablated"][mask | 1 << i])])
        rows.append(["tr", {"class": "off"} if gone else {},
                     ["th", {"scope": "row"}, head_label(layer, head) + (" (off)" if gone else "")],
                     *[["td", {"class": "num"}, cell] for cell in cells]])
    head = ["tr", {}, *[["th", {"scope": "col"}, t] for t in
                        ("head", "previous-token score", "induction score",
                         "accuracy with it off too" if off else "accuracy without it")]]
    now = measured["ablated"][mask]
    line = (f"Held-out accuracy with every head on: {percent(now)}." if not off else
            f"Held-out accuracy with {switched_text(off)} switched off: {percent(now)} "
            f"(every head on: {percent(measured['ablated'][0])}).")
    caption = f"{model_name}, measured on {held_out_size()} held-out sequences" + (
        f"; scores with {switched_text(off)} switched off" if off else "")
    return [["table", {"class": "figure-table train-scores-table", "aria-label": "head scores"},
             ["caption", {}, caption],
             ["thead", {}, head], ["tbody", {}, *rows]],
            ["p", {"class": "train-accuracy", "id": "train-accuracy"}, line],
            heads_note(describe_run(measured), params)]


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

def describe_run(measured, finished=True):
    """The facts of a measured run (mha.training.measure's dict), for the sentences that describe it:
    {"accuracy", "induction": (the top induction head, its score), "previous": (the top previous-token head of an
     earlier layer, its score) or None, "kind": "circuit" (mha.training.classify finds its pair), "early" (the top
     induction head reaches INDUCTION_MIN in layer 0), "forming" (no pair yet, at a checkpoint before the run's end: finished
     False), "stalled" (accuracy below LEARNED) or "other" (learned without the pair), tried in that order;
     "missing": classify's failed conditions; "without": [(name, accuracy with it alone off)]; "leaning": the
     (name, accuracy) of the head whose loss costs most; "sharing": the heads of the previous-token head's layer
     whose previous-token score reaches PREVIOUS_MIN, as (name, score); "sharing_off": the accuracy with all of them
     off (None when that set was not measured); "free": heads whose loss costs nothing,
     as (name, accuracy); "first_token": the induction head's (weight on the first token where the letter has no
     earlier twin, the same for even weights); "earlier": (name, the induction head's score with it off) for each
     head of an earlier layer, lowest first}."""
    names = [tuple(n) for n in measured["heads"]]
    scores = list(zip(names, measured["scores"]))
    accuracy = measured["ablated"][0]
    report = [{"layer": name[0], "head": name[1], "previous_token": s[0], "induction": s[1]} for name, s in scores]
    verdict = mha.training.classify(report, accuracy)
    ind_name = tuple(verdict["induction_head"])
    previous = None if verdict["previous_token_head"] is None else \
        (tuple(verdict["previous_token_head"]), verdict["previous_token"])
    early = verdict["missing"] == ["order"]  # a strong induction head, in layer 0
    kind = ("circuit" if verdict["kind"] == "pair" else "early" if early else
            "forming" if not finished else "stalled" if accuracy < LEARNED else "other")
    without = [(name, measured["ablated"][1 << i]) for i, name in enumerate(names)]
    sharing = [] if previous is None else [(name, s[0]) for name, s in scores
                                           if name[0] == previous[0][0] and s[0] >= PREVIOUS_MIN]
    sharing_off = measured["ablated"][mask_of(names, {name for name, _ in sharing})] if len(sharing) > 1 else None
    earlier = [(name, off[names.index(ind_name)][1]) for i, name in enumerate(names)
               if name[0] < ind_name[0] and (off := measured["scores_off"][1 << i]) is not None]
    return {"accuracy": accuracy, "induction": (ind_name, verdict["induction"]), "previous": previous,
            "earlier": sorted(earlier, key=lambda pair: pair[1]),
            "kind": kind, "missing": verdict["missing"], "without": without,
            "leaning": min(without, key=lambda pair: pair[1]), "sharing": sharing, "sharing_off": sharing_off,
            "free": [(name, acc) for name, acc in without if acc >= accuracy],
            "first_token": measured["first_token"][names.index(ind_name)]}


def score(x):
    return f"{x:.2f}"


def story(facts, whose):
    """The sentences about a measured run (whose: "the build-time run", "your run (seed 3, 200 steps)"), each
    rendered from describe_run()'s facts: its accuracy, its top heads, what formed."""
    i_name, i = facts["induction"]
    first = (f"{capitalised(whose)} reaches {percent(facts['accuracy'])} held-out. Its top induction head: "
             f"{head_label(*i_name)} ({beside(i, INDUCTION_MIN)})")
    if facts["previous"] is not None:
        p_name, p = facts["previous"]
        first += f"; the top previous-token head before it: {head_label(*p_name)} ({beside(p, PREVIOUS_MIN)})"
    kind = facts["kind"]
    if kind == "circuit":
        second = f"Both reach their lines ({PREVIOUS_MIN} and {INDUCTION_MIN}): the pair formed."
    elif kind == "early":
        second = "It sits in layer 0, with no earlier layer to read from: no pair."
    elif kind == "forming":
        second = f"Not a pair yet: {why_no_pair(facts)}."
    elif kind == "stalled":
        second = f"No pair: {why_no_pair(facts)}; and it is still below {percent(LEARNED)}."
    else:
        name, acc = facts["leaning"]
        second = (f"No pair: {why_no_pair(facts)}. It learned all the same, leaning most on {head_label(*name)} "
                  f"(without it, {percent(acc)}).")
    return [["p", {}, first, ". ", second]]


def reads_through(facts):
    """'With layer 0 head 0 off, layer 1 head 1's induction score falls from 0.98 to 0.76; with layer 0 head 1 off,
    it falls to 0.77.': what each earlier head gives the induction head, measured by switching it off, every one
    said (the top previous-token score need not name the head it reads through; near-equal cuts are not ranked).
    It answers section 8's question: fig-train-reads, which waits for its Check (data-after)."""
    i_name, on = facts["induction"]
    said = []
    for k, (name, off) in enumerate(facts["earlier"]):
        before, after = apart(on, off)
        verb = "falls" if off < on else "rises"
        change = (f"stays at {after}" if off == on else f"{verb} from {before} to {after}" if k == 0 else
                  f"{verb} to {after}")
        whose = f"{head_label(*i_name)}'s induction score " if k == 0 else "it "
        said.append(f"with {head_label(*name)} off, {whose}{change}")
    return [["p", {"class": "note"}, f"{capitalised('; '.join(said))}."]] if said else []


def why_no_pair(facts):
    """classify()'s failed score conditions in words, each score printed beside its line (beside())."""
    reasons = []
    if "previous_token" in facts["missing"]:
        reasons.append(f"the previous-token score, {beside(facts['previous'][1], PREVIOUS_MIN)}, is under "
                       f"{PREVIOUS_MIN}")
    if "induction" in facts["missing"]:
        reasons.append(f"the induction score, {beside(facts['induction'][1], INDUCTION_MIN)}, is under "
                       f"{INDUCTION_MIN}")
    return " and ".join(reasons)


def heads_note(facts, params=None):
    """What the scores table shows about single heads, one claim a sentence, each rendered from the run: the
    heads that share the previous-token job, the heads that cost nothing, where the induction head looks when
    the letter has no earlier twin."""
    said = []
    if len(facts["sharing"]) > 1:
        layer = facts["sharing"][0][0][0]
        alone = dict(facts["without"])
        # a layer has two heads (mha.training.HEADS), so the heads that share its job are "both"
        both = "" if facts["sharing_off"] is None else f", both: {percent(facts['sharing_off'])}"
        said.append(f"Layer {layer} shares the previous-token job: " + " and ".join(
            f"{head_label(*name)} ({score(s)})" for name, s in facts["sharing"]) + f" each pass {PREVIOUS_MIN}; "
            "accuracy with one off: " + " and ".join(percent(alone[name]) for name, _ in facts["sharing"]) +
            f"{both}.")
    for name, acc in facts["free"]:
        said.append(f"Without {head_label(*name)}: {percent(acc)}, no cost.")
    said.append(sink_sentence(facts, params))
    return ["p", {"class": "note train-heads-note"}, " ".join(said)]


def sink_sentence(facts, params=None):
    """Where the induction head looks when the letter has no earlier twin: the held-out average, and (params given)
    row by row on SAMPLE, since an average can hide rows where it parks on the first token and rows where it does not."""
    (name, _), (weight, even) = facts["induction"], facts["first_token"]
    said = (f"Where a letter has no earlier twin, {head_label(*name)} puts {score(weight)} of its weight on the first "
            f"token on average (even weights: {score(even)})")
    if params is None:
        return said + "."
    rows = mha.training.first_token_rows(params, name, parse_sequence(SAMPLE))
    parked = sum(w >= mha.training.SINK for _, w in rows)
    return (f"{said}, but {SAMPLE}'s rows {rows[0][0]}-{rows[-1][0]} put {', '.join(score(w) for _, w in rows)}: "
            f"a sink ({mha.training.SINK} or more) on {parked} of {len(rows)}.")


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
                        capitalised(run_name(data, last)),
                        mha.training.params_from_checkpoint(data["checkpoints"][last]))


def _build_switches(state, view, before):
    data, last = _default()
    return switches(head_names(data["checkpoints"][last]["params"]), set(), enabled=False)


def finished(data, index):
    """Whether checkpoint index is the run's end (an earlier one may catch the pair mid-formation)."""
    return data["checkpoints"][index]["step"] == data["steps"]


def _build_story(state, view, before):
    data, last = _default()
    return story(describe_run(data["checkpoints"][last], finished(data, last)), run_name(data, last))


def _build_reads(state, view, before):
    data, last = _default()
    return reads_through(describe_run(data["checkpoints"][last]))


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


def _sample_run():
    """SAMPLE's repeated run: the longest tail that repeats the block just before it ("CAFDB")."""
    return next(SAMPLE[-n:] for n in range(len(SAMPLE) // 2, 0, -1) if SAMPLE[-n:] == SAMPLE[-2 * n:-n])


def _cell_steps():
    """The training cell's own steps: its `steps = ...` line."""
    source = Path(__file__).resolve().parents[1] / "cells" / "sources" / "training.py"  # build time only
    line = next(line for line in source.read_text().splitlines() if line.startswith("steps = "))
    return line.split("=")[1].strip()


PROSE = {
    "train-look-rows": lambda: f"{len(SAMPLE) - len(_sample_run())} to {len(SAMPLE) - 1}",
    "train-look-run": _sample_run,
    "train-look-shift": lambda: str(len(_sample_run()) - 1),
    "train-cell-steps": _cell_steps,
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
    "train-batch": lambda: str(mha.training.BATCH),
    "train-even-previous": lambda: score(mha.training.previous_token_score(mha.training.even_rows(mha.training.LENGTH))),
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
    "fig-train-reads": Figure(_build_reads),
}
