"""True at every setting (issue 23, section 2): every control swept, every rendered claim checked against mha.

The page without a browser: `Page` below does what app/main.py's handlers do with each control (the same
pure transition of page/state.py, the same parser, the same gate, a refused change kept out), and at each
setting every live figure (figures.FIGURES, redrawn on some event) is built from (state, compute(state),
the view shown before) as the page draws it. Its trees are then read back, as text and numbers, and each
claim is checked against a computation in this file: numpy for the attention (softmax rows, head outputs,
concatenation, w_o), the formula for the KV bill, by-hand softmax for section 9, and the threshold rule
for section 8's verdicts. mha's public functions give only the inputs (random_projections' matrices, the
lesson's tokens, the published model shapes); no expected number comes from the figure code.

What is swept (the product below, each a list of the reader's actions from a fresh page):
- section 2: width (4, 8, 16, 64) and heads (1 up to the width), by either heads picker;
- section 3: projections identity or random, the seed (0, 2**32 - 1 and text it refuses), the causal mask;
- the token grid: typed values (0, negatives, tiny and large numbers, text that is not a number, overflow),
  tokens removed down to one and added up to mha.MAX_TOKENS, and one more press either way;
- section 6: key/value heads (plain, grouped, one) and the sharing query-heads picker; the KV calculator:
  every published model and shapes of one's own, sequence lengths up to and beyond a model's context,
  batch, bytes per number, and refused fields;
- section 7: cross-attention on and off, its context grid edited, context tokens added and removed;
- section 9: distractors 0, 1, 2, 30, 999, 1000 and the texts the field refuses;
- section 4's buttons (both exercises, back to the lesson's tokens, reset the figures) from many states;
- section 8: the story sentences over the 100 seeds of site/figures/training_seeds.json.

Section 1's fig-blend moves only with its own three tokens: its sentences are swept over typed tokens at the end
of this file. Left out, on purpose: section 2's cost figure (fig-recipe-costs, and the line and
sequence-length field replacing it: fig-recipe-line, fig-cost-seq-len, fig-cost-share, the cost-seq-len
control) were being rewritten while this file was written, and so were the code cells: their own tests
cover them. The trained model's figures
(fig-train-*, fig-probe*) draw the build's training run, which no control changes and which costs the
build's minute of training: their sentences are swept over the seeds instead, from the seed table's numbers.
"""

import ast
import functools
import itertools
import math
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import mha
import mha.training
from figures import FIGURES, exercise, recipe, seeds
from figures import training as story_figures
from figures.kv import KV_FIELDS, read_kv_fields
from page import state as page_state
from page.dom import to_html
from figure_sets import BROKEN, READ_THE_RUN, SKIPPED, STATIC
from trees import class_list, text

MAIN_PY = Path(__file__).resolve().parents[2] / "site" / "app" / "main.py"
SKIPPED_CONTROLS = {"cost-seq-len", "reset-blend"}  # tested in test_recipe_figures.py
LIVE = sorted(fid for fid, figure in FIGURES.items() if figure.redraw and fid not in SKIPPED)
MAX_SEED = 2**32 - 1
MOVED = 0.5e-4           # a weight that moved less than half the last printed digit is said not to move


# --- the page without a browser: app/main.py's handlers, each through its pure transition ------------

class Page:
    """A reader's page: the state, the view drawn, the view the moved markers compare with, what was refused.

    do(action) runs one control as app/main.py does: read (a parser), transition (page/state.py),
    the gate (state.compute); a ValueError anywhere leaves the state as it was and is said (kept in
    `said`). `shown` is the state whose numbers were drawn last (main.py's SHOWN["view"]): the head
    tables' markers compare with it.
    """

    def __init__(self):
        self.state = page_state.default_state()
        self.view = page_state.compute(self.state)  # the View of view_of (the gate's, below)
        self.view_of = self.state
        self.shown = self.shown_view = None
        self.said = []       # (action, sentence) for every refusal
        self.surprises = []  # an action refused that should not be, or accepted that should be refused
        self.status = ""     # section 4's sentence after a button
        self.kv_texts = self._kv_field_texts()  # what the calculator's fields show
        self.kv_read = dict(self.kv_texts)        # what they showed at its last accepted change

    def _kv_field_texts(self):
        """What the KV calculator's fields show: kv-fields drawn from the state (after a model switch)."""
        tree = FIGURES["kv-fields"].build(self.state, None, None)
        return {field[1]["id"]: field[1]["value"] for field in find(tree, "input")}

    def commit(self, new_state, numbers=True):
        """main.commit: through the gate, or ValueError. `numbers`: the head tables are drawn again.

        As main.commit does, the gate is given the View before, whose projected rows it reuses; the View
        is kept for render(), with the View the head tables compare with."""
        view = page_state.compute(new_state, self.view)
        if numbers:
            self.shown, self.shown_view = self.state, self.view
        self.state, self.view, self.view_of = new_state, view, new_state

    def do(self, action):
        name, *args = action
        refused = name == "refused"
        if refused:
            name, *args = args[0]
        try:
            self._do(name, *args)
        except ValueError as error:
            self.said.append((action, str(error)))
            if not refused:
                self.surprises.append(f"{action} refused: {error}")
            return
        if refused:
            self.surprises.append(f"{action} was accepted")

    def _do(self, name, *args):
        s = self.state
        transitions = {
            "width": lambda v: page_state.with_width(s, int(v)),
            "heads": lambda v: page_state.with_heads(s, int(v)),
            "sharing-heads": lambda v: page_state.with_heads(s, int(v)),
            "kv-heads": lambda v: page_state.with_kv_heads(s, int(v)),
            "projections": lambda v: page_state.with_projections(s, v),
            "causal": lambda v: page_state.changed(s, causal=bool(v)),
            "cross": lambda v: page_state.with_cross(s, bool(v)),
            "seed": lambda v: page_state.changed(s, seed=LINKED["seed"](v)),
            "add-token": lambda: page_state.with_token_added(s, "tokens"),
            "remove-token": lambda: page_state.with_token_removed(s, "tokens"),
            "add-context-token": lambda: page_state.with_token_added(s, "context"),
            "remove-context-token": lambda: page_state.with_token_removed(s, "context"),
        }
        if name in transitions:
            self.commit(transitions[name](*args))
        elif name == "digits":  # main.on_digits: the same numbers printed again, marked against the same view
            self.state = {**s, "digits": 4 if args[0] else 2}
        elif name == "field":  # one field of a grid: main.on_grid_field
            key, t, slot, typed = args
            value = mha.parse_number(typed, f"{page_state.GRIDS[key]} {t} slot {slot}")
            if s[key][t][slot] != value:
                self.commit(page_state.with_number(s, key, t, slot, value))
            if self.state[key][t][slot] != float(typed):
                self.surprises.append(f"{key} {t} slot {slot} holds {self.state[key][t][slot]}, typed {typed!r}")
        elif name == "distractors":  # main.on_setting: the competition redraws, not the head tables
            self.commit(page_state.changed(s, distractors=LINKED["distractors"](args[0])), numbers=False)
        elif name == "kv-model":  # main.on_model: "custom" keeps the fields as they are, and drops the name
            if args[0] == "custom":
                self.state = page_state.with_own_shape(s)
            else:
                self.state = page_state.with_model(s, args[0])
                self.kv_texts = self._kv_field_texts()
                self.kv_read = dict(self.kv_texts)
        elif name == "kv-field":  # main.on_kv_field: every field read, then straight into the state
            self.kv_texts[args[0]] = args[1]
            self.state = page_state.with_kv_fields(s, *read_kv_fields(dict(self.kv_texts)))
            self.kv_read = dict(self.kv_texts)
        elif name in exercise.EXERCISES:  # main.on_preset: the lesson's tokens, then the edit
            for step in page_state.with_exercise(s, exercise.EXERCISES[name]):
                self.commit(step)
            self.status = exercise.status(name, self.state)
        elif name == "preset-lesson":
            self.commit(page_state.with_preset(s, mha.LESSON_TOKENS))
            self.status = exercise.status(name, self.state)
        elif name == "lesson-shape":  # main.on_lesson_shape: section 3's way back to width 4, 2 plain heads
            self.commit(page_state.with_lesson_shape(s))
        elif name == "reset-all":  # main.on_reset: the KV calculator and the decimals asked for stay
            self.commit({**page_state.default_state(), "kv": s["kv"], "digits": s["digits"]})
            self.status = exercise.status(name, self.state)
        elif name in ("fill", "empty"):  # press add (remove) until the page refuses: it must at the limit
            key = args[0]
            press = "add-token" if name == "fill" else "remove-token"
            press = press.replace("token", "context-token") if key == "context" else press
            limit = mha.MAX_TOKENS if name == "fill" else 1
            while len(self.state[key]) != limit:
                self._do(press)
            self.do(("refused", (press,)))
        else:
            raise AssertionError(f"the sweep has no control {name!r}")


LINKED = {linked.field: linked.parse for linked in page_state.LINKED}


def controls_of_the_page():
    """The ids app/main.py's INPUTS and ACTIONS answer to, read from its source (it imports the browser)."""
    tree = ast.parse(MAIN_PY.read_text())
    names = {"KV_FIELDS": KV_FIELDS, "exercise": exercise, "recipe": recipe}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id in ("INPUTS", "ACTIONS"):
            ids = set()
            for key, value in zip(node.value.keys, node.value.values):
                if key is not None:
                    ids.add(key.value)
                else:  # **{fid: handler for ...}: the keys, evaluated over the names they come from
                    keys = ast.DictComp(value.key, ast.Constant(None), value.generators)
                    ids |= set(eval(compile(ast.fix_missing_locations(ast.Expression(keys)), "main.py", "eval"),
                                    names))
            found[node.targets[0].id] = ids
    return found


# --- test data: the settings, each a list of actions from a fresh page -----------------------------

SHAPES = {  # name -> actions: width, then the query heads (by one picker or the other), then key/value heads
    "w4-h1": [("width", 4), ("heads", 1)],
    "w4-h2": [],
    "w4-h2-mq": [("kv-heads", 1)],
    "w4-h4-gq2": [("sharing-heads", 4), ("kv-heads", 2)],
    "w8-h8-mq": [("width", 8), ("heads", 8), ("kv-heads", 1)],
    "w16-h4-gq2": [("width", 16), ("sharing-heads", 4), ("kv-heads", 2)],
    "w64-h8-gq4": [("width", 64), ("heads", 8), ("kv-heads", 4)],
}
PROJECTIONS = {
    "identity": [("projections", "identity")],
    "random-seed0": [("projections", "random")],
    "random-seedmax": [("projections", "random"), ("seed", str(MAX_SEED)), ("refused", ("seed", str(MAX_SEED + 1))),
                       ("refused", ("seed", "-1")), ("refused", ("seed", "1.5")), ("refused", ("seed", "seven"))],
}
CAUSAL = {"full": [("causal", False)], "causal": [("causal", True)]}
TYPED = [("field", "tokens", 0, 0, "0"), ("field", "tokens", 1, 1, "-2.5"), ("field", "tokens", 0, 3, " 3 "),
         ("field", "tokens", 1, 2, "1e-9"), ("field", "tokens", 1, 0, "-0"),
         ("refused", ("field", "tokens", 0, 1, "abc")), ("refused", ("field", "tokens", 0, 1, "")),
         ("refused", ("field", "tokens", 0, 1, "nan")), ("refused", ("field", "tokens", 0, 1, "inf")),
         ("refused", ("field", "tokens", 0, 1, "1e999")), ("refused", ("field", "tokens", 0, 1, "1e200")),
         ("field", "tokens", 0, 1, "12")]
TOKENS = {  # the lesson's own two tokens are drawn by section 4's buttons, below
    "typed": TYPED,
    "one": [("empty", "tokens"), ("field", "tokens", 0, 2, "-7")],
    "five": [("add-token",), ("add-token",), ("add-token",), ("field", "tokens", 2, 0, "1000"),
             ("field", "tokens", 3, 1, "-1000"), ("field", "tokens", 4, 3, "0.5")],
}
CROSS = {
    "self": [],
    "cross": [("cross", True)],
    "cross-edited": [("cross", True), ("field", "context", 0, 0, "-4"), ("add-context-token",),
                     ("field", "context", 3, 1, "2.5"), ("field", "context", 1, 3, "100"),
                     ("refused", ("field", "context", 2, 2, "x"))],
    "cross-one": [("cross", True), ("empty", "context"), ("field", "context", 0, 1, "3")],
}
DISTRACTORS = ["0", "1", "2", "30", "999", "1000", " 7 "]
DISTRACTOR_CYCLE = ["0", "1", "2", "30", "1000", " 7 "]  # one per setting of the product (999 is swept alone)
DISTRACTORS_REFUSED = ["1001", "-1", "1.5", "", "abc", "1e3", "1_000", "\uff11\uff10", "10000000000000000000000"]
MODELS = [*page_state.MODEL_NAMES, "one of everything", "a wide custom model"]
CUSTOM = {  # field id -> text, for two shapes of one's own, typed in this order (key/value heads must divide)
    "one of everything": {"kv-layers": "1", "kv-kv-heads": "1", "kv-query-heads": "1", "kv-head-width": "1"},
    "a wide custom model": {"kv-layers": "61", "kv-kv-heads": "16", "kv-query-heads": "128", "kv-head-width": "56"},
}
SEQ_LENS = ["1", "4096", "4097", "131073", "10000000"]
BATCHES = ["1", "3"]
BYTES = ["1", "2", "0.5"]
KV_REFUSED = [("kv-seq-len", "0"), ("kv-seq-len", "10000001"), ("kv-seq-len", "12k"), ("kv-batch", "0"),
              ("kv-batch", "100001"), ("kv-bytes", "0"), ("kv-bytes", "-2"), ("kv-bytes", "nan"),
              ("kv-bytes", "inf"), ("kv-bytes", ""), ("kv-kv-heads", "5"), ("kv-layers", "0")]
KV_PRODUCT = list(itertools.product(MODELS, SEQ_LENS, BATCHES, BYTES))
PRESETS = ["try-exercise", "try-exercise-random", "preset-lesson", "reset-all"]


def kv_actions(model, seq_len, batch, per_number):
    """Pick a model (or 'custom' and type a shape), then type the sequence length, batch and bytes."""
    picked = [("kv-model", "custom"), *[("kv-field", fid, typed) for fid, typed in CUSTOM[model].items()]] \
        if model in CUSTOM else [("kv-model", model)]
    return [*picked, ("kv-field", "kv-seq-len", seq_len), ("kv-field", "kv-batch", batch),
            ("kv-field", "kv-bytes", per_number)]


class Setting(NamedTuple):
    name: str
    actions: tuple


def _settings():
    """The product of the head figure's controls, each with a distractor count and a KV calculator setting taken
    in turn (7 is prime to the calculator's 300 settings, so the first 300 of the product take each once); then
    the limits (full grids at the largest sizes), the sections' refusals and section 4's buttons."""
    kv_cycle = [kv_actions(*c) for c in KV_PRODUCT]
    settings = []
    for i, parts in enumerate(itertools.product(SHAPES.items(), PROJECTIONS.items(), CAUSAL.items(),
                                                CROSS.items(), TOKENS.items())):
        name = "/".join(part_name for part_name, _ in parts)
        distractors = DISTRACTOR_CYCLE[i % len(DISTRACTOR_CYCLE)]
        four = i % 2 == 1  # every other setting asks for 4 decimals, after its edits (the marks must stay)
        actions = [*[a for _, part in parts for a in part], ("distractors", distractors),
                   *kv_cycle[(7 * i) % len(kv_cycle)], *([("digits", True)] if four else [])]
        settings.append(Setting(f"{name}/d{distractors.strip()}{'/4dp' if four else ''}", tuple(actions)))
    limits = {  # the largest grids: 32 tokens, width 64, as many heads as slots
        "full-grid-w4-h4": [("heads", 4), ("fill", "tokens"), ("cross", True), ("fill", "context")],
        "full-grid-w64-h64-random": [("width", 64), ("heads", 64), ("projections", "random"), ("fill", "tokens"),
                                     ("field", "tokens", 31, 63, "-3"), ("causal", True)],
        "w64-h64-mq-cross": [("width", 64), ("heads", 64), ("kv-heads", 1), ("cross", True),
                             ("field", "context", 2, 60, "5")],
        "w32-h16-gq8-causal-cross-five": [("width", 32), ("heads", 16), ("kv-heads", 8), ("causal", True),
                                          ("cross", True), ("add-context-token",), ("add-context-token",),
                                          *TOKENS["five"]],
        "cross-then-narrower": [("width", 16), ("cross", True), ("field", "context", 0, 15, "9"), ("width", 4)],
        "shared-then-identity": [("heads", 4), ("kv-heads", 1), ("projections", "identity")],
        "shared-then-more-heads": [("width", 8), ("kv-heads", 1), ("heads", 8), ("sharing-heads", 2)],
        "nine-tokens-past-the-pictures": [("width", 8), *[("add-token",)] * 7, ("cross", True),
                                          *[("add-context-token",)] * 6, ("field", "context", 8, 7, "-2")],
        "shared-then-lesson-shape": [("width", 16), ("heads", 8), ("kv-heads", 2), ("field", "tokens", 1, 3, "7"),
                                     ("lesson-shape",)],
        "wide-random-then-lesson-shape": [("width", 64), ("projections", "random"), ("lesson-shape",)],
        "large-numbers": [("field", "tokens", 0, 0, "1e6"), ("field", "tokens", 1, 1, "-1e6"),
                          ("projections", "random"), ("field", "tokens", 1, 3, "1e100")],
        "4dp-then-edits-then-2dp": [("digits", True), ("field", "tokens", 0, 1, "0.3"), ("cross", True),
                                    ("digits", False), ("field", "tokens", 1, 0, "2")],
    }
    settings += [Setting(name, tuple(actions)) for name, actions in limits.items()]
    settings += [Setting(f"distractors {typed!r}", (("distractors", typed),)) for typed in DISTRACTORS]
    settings += [Setting(f"distractors refused {typed!r}",
                         (("distractors", "30"), ("refused", ("distractors", typed)))) for typed in DISTRACTORS_REFUSED]
    settings += [Setting(f"kv refused {fid}={typed!r}", (*kv_actions("Llama-2-70B", "5000", "2", "1"),
                                                         ("refused", ("kv-field", fid, typed))))
                 for fid, typed in KV_REFUSED]
    starts = itertools.product([("w4", []), ("w8-h4-gq2", [("width", 8), ("heads", 4), ("kv-heads", 2)]),
                                ("w16-h16", [("width", 16), ("heads", 16), ("add-token",)])],
                               PROJECTIONS.items(), CAUSAL.items(), [("self", []), ("cross", CROSS["cross-edited"])])
    kept = [("kv-model", "Falcon-7B"), ("kv-field", "kv-seq-len", "3000"), ("distractors", "30"), ("digits", True)]
    for parts, preset in itertools.product(starts, PRESETS):
        name = "/".join(part_name for part_name, _ in parts)
        settings.append(Setting(f"{name}/{preset}", (*[a for _, part in parts for a in part], *kept, (preset,))))
    settings.append(Setting("every button in turn", tuple((p,) for p in [*PRESETS, *PRESETS[::-1]])))
    return settings


SETTINGS = _settings()


# --- the reference: attention in numpy ----------------------------------------------------------

class Reference(NamedTuple):
    weights: np.ndarray  # (heads, n, m)
    wide: np.ndarray     # (n, m): one head over all d slots, no projections
    queries: np.ndarray  # (heads, n, hw)
    keys: np.ndarray     # (kv_heads, m, hw)
    values: np.ndarray   # (kv_heads, m, hw)
    concat: np.ndarray   # (n, d)
    outputs: np.ndarray  # (n, d)


def softmax_rows(scores):
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def reference(tokens, heads, kv_heads, causal, weights=None, context=None):
    """Multi-head attention written again in numpy: softmax(q k^T / sqrt(hw)) v per head, concat, @ w_o.

    weights: mha.random_projections' w_q, w_k, w_v, w_o (None: identity, each head its own slots).
    Query head i reads key/value head i // (heads / kv_heads).
    """
    x = np.array(tokens, dtype=float)
    c = x if context is None else np.array(context, dtype=float)
    (n, d), m = x.shape, len(c)
    hw, group = d // heads, heads // kv_heads
    if weights:
        wq, wk, wv, wo = (np.array(weights[k], dtype=float) for k in ("w_q", "w_k", "w_v", "w_o"))
        q, k, v = x @ wq, c @ wk, c @ wv
    else:  # identity: key/value head j is the slots of query head j * group
        wo = None
        slots = np.concatenate([np.arange(j * group * hw, j * group * hw + hw) for j in range(kv_heads)])
        q, k, v = x, c[:, slots], c[:, slots]
    qh = q.reshape(n, heads, hw).transpose(1, 0, 2)      # (n, d) -> (h, n, hw)
    kh = k.reshape(m, kv_heads, hw).transpose(1, 0, 2)   # (m, g * hw) -> (g, m, hw)
    vh = v.reshape(m, kv_heads, hw).transpose(1, 0, 2)
    shared = np.arange(heads) // group
    mask = np.tril(np.ones((n, m), dtype=bool)) if causal else np.ones((n, m), dtype=bool)
    scores = np.where(mask, qh @ kh[shared].transpose(0, 2, 1) / math.sqrt(hw), -np.inf)
    w = softmax_rows(scores)
    concat = (w @ vh[shared]).transpose(1, 0, 2).reshape(n, d)  # (h, n, hw) -> (n, d)
    wide = softmax_rows(np.where(mask, x @ c.T / math.sqrt(d), -np.inf))
    return Reference(w, wide, qh, kh, vh, concat, concat if wo is None else concat @ wo)


def references(state):
    """(self-attention, cross-attention or None) for a state, from its tokens and mha.random_projections."""
    width = len(state["tokens"][0])
    weights = None if state["projections"] == "identity" else \
        mha.random_projections(width, state["heads"], kv_heads=state["kv_heads"], seed=state["seed"])
    args = (state["heads"], state["kv_heads"])
    own = reference(state["tokens"], *args, state["causal"], weights)
    cross = None if state["context"] is None else reference(state["tokens"], *args, False, weights, state["context"])
    return own, cross



# --- one pass: each setting rendered once, every check run on it, its trees dropped ------------------

class Rendered(NamedTuple):
    setting: Setting
    page: Page
    view: object    # page_state.View of the state
    before: object  # the View the moved markers compare with, or None
    trees: dict     # figure id -> its children
    refs: tuple     # references(state): (self-attention, cross-attention or None)
    before_refs: tuple
    memo: dict      # what more than one check reads (all_text)


def ignoring_digits_and_kv(state):
    return {key: value for key, value in state.items() if key not in ("digits", "kv")}


def render(setting):
    WALKED.clear()
    page = Page()
    for action in setting.actions:
        page.do(action)
    view, before = page.view, page.shown_view  # the gate's Views: the digits and the KV calculator keep them
    assert ignoring_digits_and_kv(page.state) == ignoring_digits_and_kv(page.view_of), "a change skipped the gate"
    trees = {fid: FIGURES[fid].build(page.state, view, before) for fid in LIVE}
    return Rendered(setting, page, view, before, trees, references(page.state),
                    None if page.shown is None else references(page.shown), {})


CHECKS = {}  # check name -> check(rendered): raises AssertionError with what is wrong


def check(function):
    CHECKS[function.__name__] = function
    return function


@functools.cache
def swept():
    """{check name: ["setting: what failed", ...]}: every check at every setting. "render" holds the
    settings whose figures could not be built at all."""
    failed = {name: [] for name in ("render", *CHECKS)}
    for setting in SETTINGS:
        try:
            r = render(setting)
        except Exception as error:  # a figure that does not build fails the sweep, whatever it raises
            failed["render"].append(f"{setting.name}: {type(error).__name__}: {error}")
            continue
        for name, function in CHECKS.items():
            try:
                function(r)
            except Exception as error:
                failed[name].append(f"{setting.name}: {type(error).__name__}: {error}")
    return failed


def assert_true_everywhere(function):
    failed = swept()[function.__name__]
    assert not failed, f"{len(failed)} of {len(SETTINGS)} settings fail, e.g.:\n" + "\n".join(failed[:6])


# --- reading the trees back -----------------------------------------------------------------------

WALKED = {}  # id(tree) -> (tree, its nodes): one setting's trees are walked once each (render() clears it)


def nodes(tree):
    """Every element node of a tree (or a list of children), in document order: trees.nodes without its
    recursion, and kept while the setting is checked (a sweep reads some million nodes)."""
    kept = WALKED.get(id(tree))
    if kept is not None and kept[0] is tree:
        return kept[1]
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            if node and isinstance(node[0], str) and len(node) > 1 and isinstance(node[1], dict):
                found.append(node)
                stack.extend(reversed(node[2:]))
            else:
                stack.extend(reversed(node))
    WALKED[id(tree)] = (tree, found)
    return found


def find(tree, tag, **attrs):
    """Nodes with this tag whose attributes include attrs (underscores as dashes: aria_label=...)."""
    want = {k.replace("_", "-"): v for k, v in attrs.items()}
    return [n for n in nodes(tree) if n[0] == tag and all(n[1].get(k) == v for k, v in want.items())]


def table(tree, label):
    found = find(tree, "table", aria_label=label)
    assert len(found) == 1, f"{len(found)} tables called {label!r}"
    return found[0]


def body_cells(tree):
    """[[td text, ...] per body row] of a table."""
    return [[text(td) for td in find(row, "td")] for row in find(find(tree, "tbody")[0], "tr")]


def header(tree):
    return [text(th) for th in find(find(tree, "thead")[0], "th")]


def data_values(tree):
    return [float(x) for x in tree[1]["data-values"].split(" ")]


def caption(tree):
    return text(find(tree, "caption")[0])


def with_class(tree, tag, name):
    return [node for node in find(tree, tag) if name in class_list(node)]


def selected(tree, select_id):
    """(the options' values, the selected one) of a <select>."""
    (select,) = find(tree, "select", id=select_id)
    options = find(select, "option")
    return [o[1]["value"] for o in options], [o[1]["value"] for o in options if o[1].get("selected")]


def close_printed(printed, expected, digits=4):
    """A number printed to `digits` decimals (exactly that many) says the expected value: within half its last
    digit of it (numpy may differ in the 16th digit)."""
    decimals = len(printed.partition(".")[2])
    return decimals == digits and \
        abs(float(printed) - float(expected)) <= 0.5 * 10**-digits + 1e-9 + abs(float(expected)) * 1e-12


def close_share(printed, expected):
    """A weight a sentence prints (page.dom.share_text): 2 decimals, or 2 significant digits below 0.01 (0.0073,
    0.000059), within half its last digit of the expected value."""
    decimals = len(printed.partition(".")[2])
    significant = printed.partition(".")[2].lstrip("0")
    right_form = decimals == 2 if float(printed) >= 0.01 else len(significant) == 2
    return right_form and abs(float(printed) - float(expected)) <= 0.5 * 10**-decimals + 1e-12


def assert_printed(cells, expected, what, digits=4):
    expected = np.asarray(expected)
    assert np.shape(cells) == expected.shape, f"{what}: {np.shape(cells)} cells, expected {expected.shape}"
    for index in np.ndindex(expected.shape):
        printed = cells[index[0]][index[1]]
        assert close_printed(printed, expected[index], digits), \
            f"{what}{list(index)}: {printed}, numpy {expected[index]} to {digits} decimals"


def assert_exact(values, expected, what):
    assert np.allclose(values, np.ravel(expected), rtol=1e-9, atol=1e-12), f"{what}: data-values differ from numpy"


INLINE = {"strong", "em", "span", "code", "kbd", "small", "tspan"}  # parts of a sentence; other tags end one


def phrases(tree):
    """A tree's text as a reader meets it: one string per block (a paragraph, a cell, an option, an SVG text),
    the inline elements inside it joined into its sentence."""
    found, current = [], []

    def walk(node):
        if isinstance(node, str):
            current.append(node)
            return
        if node and isinstance(node[0], str) and len(node) > 1 and isinstance(node[1], dict):
            tag, children = node[0], node[2:]
        else:
            tag, children = None, node
        if tag in INLINE:
            for child in children:
                walk(child)
            return
        end()
        for child in children:
            walk(child)
        end()

    def end():
        if "".join(current).strip():
            found.append("".join(current).strip())
        current.clear()

    walk(tree)
    end()
    return found


def all_text(r):
    """Every sentence a reader sees or hears at this setting: each figure's text, its labels and titles,
    section 4's status and the refusals' sentences."""
    if "text" in r.memo:
        return r.memo["text"]
    parts = r.memo["text"] = []
    for tree in r.trees.values():
        parts += phrases(tree)
        parts += [node[1][name] for node in nodes(tree) for name in ("aria-label", "aria-valuetext", "title")
                  if name in node[1]]
    parts += [r.page.status] + [sentence for _, sentence in r.page.said]
    return parts


def plural(count, noun):
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def names_count(words, n):
    """The words say the count n: as a number, or as 'one'."""
    return bool(re.search(rf"(?<![\d.,]){n}(?![\d.,]\d)", words)) or (n == 1 and "one" in words.split())


def divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


def slot_words(start, stop):
    return f"slot {start}" if stop - start == 1 else f"slots {start}-{stop - 1}"


def sizes(state):
    """(n, d, heads, kv_heads, head width, query heads per key/value head, identity slices?)."""
    n, d = len(state["tokens"]), len(state["tokens"][0])
    heads, kv = state["heads"], state["kv_heads"]
    return n, d, heads, kv, d // heads, heads // kv, state["projections"] == "identity"


def bytes_text(n):
    """A byte count as people read it: 1,024 bytes to a KiB, two decimals of GiB, TiB and PiB, one of MiB and KiB;
    whole bytes from 10 B, three digits under that (0.25 B at one bit a number)."""
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.2f} {unit}" if size >= 2**30 else f"{n / size:.1f} {unit}"
    return f"{round(n):,} B" if n >= 10 else f"{n:.3g} B"


# --- checks: the actions, nothing broken, no "1 heads" -----------------------------------------------

@check
def actions_are_taken_or_refused_as_listed(r):
    """An action marked "refused" is refused, any other is taken; a refusal says a sentence, not a word."""
    assert not r.page.surprises, r.page.surprises[:3]
    terse = [(action, sentence) for action, sentence in r.page.said if len(sentence.split()) < 4]
    assert not terse, terse[:3]


@check
def nothing_prints_nan_inf_or_none(r):
    for fid, tree in r.trees.items():
        html = to_html(["div", {}, *tree])
        found = BROKEN.search(html)
        assert not found, f"{fid} prints {found[0]!r}: ...{html[max(0, found.start() - 80):found.end() + 40]}"


VERBS = {"is", "was", "has", "does", "reads", "keeps", "says", "sees", "serves", "scores", "gets", "wins",
         "learns", "its", "this", "plus", "across", "as", "us"}
ONE_NOUNS = re.compile(r"(?<![\w.,+\-])1 ((?:key/value |query |context |distractor )?([a-z][a-z/-]*s))\b")


def one_with_plural(sentence):
    """'1 heads', '1 key/value heads', 'split in 1': a count of one said as many. An index ('head 1 reads',
    'token 1 has') and a verb after a count ('1 head has') are not."""
    bad = [m[0] for m in ONE_NOUNS.finditer(sentence)
           if m[2] not in VERBS and not re.search(r"\b(head|token|seed|layer|slot|step|query|key|position|"
                                                  r"exercise|group|run|section)\s*$", sentence[:m.start()])]
    return bad + re.findall(r"split in 1\b", sentence)


@check
def no_count_of_one_is_said_in_the_plural(r):
    bad = [(found, sentence[:160]) for sentence in all_text(r) for found in one_with_plural(sentence)]
    assert not bad, bad[:3]


# --- checks: the head tables, the cross tables, the outputs ---------------------------------------

def check_weight_tables(tree, state, ref, before, suffix, key_label):
    """Every head's table, then the one wide head's: numpy's weights to the state's digits and exactly, the caption
    naming the slots a head reads (identity slices only) and its shared key/value head, the moved markers
    against `before` (numpy's weights of the state shown before), each row's entropy, the pictures."""
    n, d, heads, kv, hw, group, identity = sizes(state)
    m, digits = ref.wide.shape[1], state["digits"]
    views = with_class(tree, "div", "head-view")
    expected = [(f"head {h}{suffix}", ref.weights[h]) for h in range(heads)] + [(f"one head{suffix}", ref.wide)]
    assert [find(v, "table")[0][1]["aria-label"] for v in views] == [label for label, _ in expected]
    comparable = before is not None and before.weights.shape == ref.weights.shape
    drawn = n <= 8 and m <= 8
    notes = with_class(tree, "p", "pictures-note")
    assert len(notes) == (0 if drawn else 1), "the pictures' note"
    assert drawn or f"with {n} queries and {m} keys" in text(notes[0])
    for h, (view, (label, w)) in enumerate(zip(views, expected)):
        t = find(view, "table")[0]
        cells = body_cells(t)
        if state["causal"] and key_label == "token":  # a key after its query: masked, never "0.0000"
            assert all(cells[i][j] == "masked" for i in range(n) for j in range(i + 1, m)), f"{label}'s mask"
            cells = [[c if j <= i else "0." + "0" * digits for j, c in enumerate(row)] for i, row in enumerate(cells)]
        assert_printed(cells, w, label, digits)
        assert_exact(data_values(t), w, label)
        assert header(t) == ["query \\ key", *[f"{key_label} {j}" for j in range(m)]], label
        if h == heads:
            words = f"one head over all {d} slots"
        else:
            reads = slot_words(h * hw, (h + 1) * hw) if identity else "all slots, projected"
            words = f"head {h} ({reads}{f', key/value head {h // group}' if group > 1 else ''})"
        delta = None
        if comparable:
            delta = w - (before.wide if h == heads else before.weights[h])
            words += ": moved" if (np.abs(delta) >= MOVED).any() else ": unchanged"
        assert caption(t) == words
        for (i, j), td in zip(np.ndindex(w.shape), find(t, "td")):
            tenths = w[i, j] * 10
            if abs(tenths - round(tenths)) > 1e-9:
                assert f"w{min(9, int(tenths))}" in class_list(td), f"{label}[{i}, {j}]'s colour"
            if delta is not None and abs(abs(delta[i, j]) - MOVED) > 1e-12:
                moved = abs(delta[i, j]) >= MOVED
                assert ("moved" in class_list(td)) == moved, f"{label}[{i}, {j}] moved {delta[i, j]}"
                assert not moved or close_printed(td[1]["data-delta"], delta[i, j]), f"{label}[{i}, {j}]'s change"
        bits = -(w * np.log2(np.where(w > 0, w, 1.0))).sum(axis=1)
        (entropy,) = with_class(view, "p", "entropy")
        said = text(entropy).removeprefix("entropy: ").removesuffix(" bits").split(", ")
        assert len(said) == n and all(close_printed(a, b, digits) for a, b in zip(said, bits)), f"{label}'s entropy"
        pictures = find(view, "svg")
        assert len(pictures) == drawn, f"{label}'s picture"
        if drawn:
            opacity = [float(line[1]["stroke-opacity"]) for line in find(pictures[0], "line")]
            assert np.allclose(opacity, w.ravel(), rtol=1e-9, atol=1e-12), f"{label}'s lines"


@check
def head_tables_say_numpys_weights(r):
    check_weight_tables(r.trees["head-tables"], r.page.state, r.refs[0], r.before_refs and r.before_refs[0],
                        " weights", "token")


@check
def cross_tables_are_queries_by_context_tokens_of_numpys_weights(r):
    state, cross = r.page.state, r.refs[1]
    if state["context"] is None:
        assert r.trees["cross-tables"] == [] and r.trees["context-grid"] == []
        return
    tables = find(r.trees["cross-tables"], "table")
    assert all(len(body_cells(t)) == len(state["tokens"]) and
               all(len(row) == len(state["context"]) for row in body_cells(t)) for t in tables)
    check_weight_tables(r.trees["cross-tables"], state, cross, r.before_refs and r.before_refs[1],
                        " cross-attention weights", "context token")


@check
def outputs_are_numpys_concatenation_and_its_product_with_w_o(r):
    n, d, heads, kv, hw, group, identity = sizes(r.page.state)
    own, tree = r.refs[0], r.trees["fig-outputs"]
    concat, out = table(tree, "concatenated heads"), table(tree, "output after w_o")
    assert header(concat) == ["token", *[f"head {s // hw} out {s % hw}" for s in range(d)]]
    assert header(out) == ["token", *[f"slot {s}" for s in range(d)]]
    for t, expected in ((concat, own.concat), (out, own.outputs)):
        assert_printed(body_cells(t), expected, t[1]["aria-label"], r.page.state["digits"])
        assert_exact(data_values(t), expected, t[1]["aria-label"])
    assert ("equals the concatenation" in caption(out)) == identity
    assert str(hw) in caption(concat)


@check
def moved_summary_counts_numpys_changes(r):
    items = find(r.trees["moved-summary"], "li")
    if r.before is None:
        assert not items and "edit a number" in text(r.trees["moved-summary"])
        return
    own, before = r.refs[0], r.before_refs[0]
    heads = r.page.state["heads"]
    tables = [(f"head {h}", own.weights[h], before.weights[h] if h < len(before.weights) else None)
              for h in range(heads)] + [("one head", own.wide, before.wide)]
    assert len(items) == len(tables)
    for item, (label, now, was) in zip(items, tables):
        said = text(item)
        if was is None or before.weights.shape != own.weights.shape:
            assert said == f"{label}: new shape, nothing to compare with"
            continue
        delta = (now - was).ravel()
        moved = delta[np.abs(delta) >= MOVED]
        if not len(moved):
            assert said == f"{label}: unchanged"
            continue
        largest = moved[np.abs(moved) >= np.abs(moved).max() - 1e-12]  # a tie: either sign may be said
        match = re.fullmatch(rf"{label}: moved, (\d+) weights?, largest change ([+-][\d.]+)", said)
        assert match and int(match[1]) == len(moved) and any(close_printed(match[2], x) for x in largest), \
            (said, len(moved), largest)
        assert said.startswith(f"{label}: moved, {plural(len(moved), 'weight')},")


@check
def patches_carry_the_numbers_the_tables_show(r):
    """Where the shape stayed, main.py patches the head, cross and output tables instead of drawing them:
    the patch's texts, numbers and captions are the drawn table's."""
    if r.before is None or r.before.shape() != r.view.shape():
        return
    for fid in ("head-tables", "cross-tables", "fig-outputs"):
        patch = FIGURES[fid].patch(r.page.state, r.view, r.before)
        tree = r.trees[fid]
        cells = [td for t in find(tree, "table") for td in find(find(t, "tbody")[0], "td")]
        assert patch["text"].split("\n") == [text(td) for td in cells] or (not cells and patch["text"] == ""), fid
        assert list(patch["value"]) == [x for t in find(tree, "table") for x in data_values(t)], fid
        marked = [text(node) for node in nodes(tree) if "data-patch" in node[1]]
        assert [words for words, _ in patch["marked"]] == marked, fid


# --- checks: section 4's sentence after the second exercise ------------------------------------

@check
def section_4s_second_exercise_quotes_numpys_rows_at_the_states_seed(r):
    """The lesson's tokens and the exercise's, 2 heads, random projections of the state's seed, in numpy:
    each head's first row before and after, as sentences print weights, and 'stays' only when the printed rows
    are equal."""
    weights = mha.random_projections(4, 2, seed=r.page.state["seed"])
    rows = [reference(tokens, 2, 2, False, weights).weights for tokens in (mha.LESSON_TOKENS, mha.EXERCISE_TOKENS)]
    said = text(r.trees["exercise-random-rows"])
    assert said.startswith(f"With seed {r.page.state['seed']}, head 0's first row "), said
    for h, subject in enumerate(("head 0's first row", "Head 1's")):
        found = re.search(rf"{subject} (goes from|stays) (\[[^]]+\])(?: to (\[[^]]+\]))?\.", said)
        assert found, (h, said)
        verb, was, now = found.groups()
        was, now = bracketed(was), bracketed(now or found.group(2))
        assert all(map(close_share, was, rows[0][h][0])) and all(map(close_share, now, rows[1][h][0])), said
        same = was == now
        assert (verb == "stays") == same, said


def bracketed(vector):
    """'[0.7513, 0.2487]' -> ['0.7513', '0.2487']."""
    return vector.strip("[]").split(", ")


# --- checks: sizes, sharing, slots, controls ------------------------------------------------------

@check
def section_3s_note_names_the_states_width_heads_and_key_value_heads(r):
    n, d, heads, kv, *_ = sizes(r.page.state)
    said = text(r.trees["fig-set-elsewhere"])
    if (d, heads, kv) == (4, 2, 2):
        assert said == "", said
    else:
        assert said == (f"Not the worked example's sizes: width {d} and {plural(heads, 'head')} (section 2), "
                        f"{plural(kv, 'key/value head')} (section 6). back to width 4 and 2 plain heads"), said
        back = page_state.with_lesson_shape(r.page.state)  # the button's way back keeps every token's first slots
        assert sizes(back)[1:4] == (4, 2, 2) and page_state.compute(back), back
        assert back["tokens"] == [(list(row) + [0.0] * 4)[:4] for row in r.page.state["tokens"]]


@check
def pickers_show_the_states_sizes_and_only_the_counts_that_divide(r):
    n, d, heads, kv, *_ = sizes(r.page.state)
    widths, chosen = selected(r.trees["fig-size"], "width")
    assert chosen == [str(d)] and {"4", "8", "16", "32", "64", str(d)} == set(widths)
    assert selected(r.trees["fig-size"], "heads") == ([str(k) for k in divisors(d)], [str(heads)])
    assert selected(r.trees["fig-kv-sharing"], "sharing-heads") == ([str(k) for k in divisors(d)], [str(heads)])
    assert selected(r.trees["fig-kv-sharing"], "kv-heads") == ([str(k) for k in divisors(heads)], [str(kv)])


@check
def sharing_diagram_groups_query_heads_as_the_state_shares_them(r):
    n, d, heads, kv, hw, group, identity = sizes(r.page.state)
    tree = r.trees["fig-kv-sharing"]
    lines = [text(p) for p in with_class(tree, "p", "kv-group")]
    assert lines == [f"key/value head {g}: " + ", ".join(f"query head {h}" for h in range(g * group, (g + 1) * group))
                     for g in range(kv)]
    words = text(find(tree, "figcaption")[0])
    kind = "plain multi-head" if kv == heads else "multi-query" if kv == 1 else "grouped-query"
    assert words.startswith(kind) and names_count(words, heads)
    assert kv == heads or kv == 1 or f"{heads} query heads share {kv} key/value heads, {group} each" in words
    if kv < heads:
        assert r.page.state["projections"] == "random", "sharing runs on random projections"


@check
def no_sentence_calls_keys_shared_unless_query_heads_share_them(r):
    n, d, heads, kv, *_ = sizes(r.page.state)
    if kv == heads:
        assert not [t for t in all_text(r) if "(shared)" in t or "shared by" in t]


@check
def kv_group_shows_numpys_queries_keys_and_values_of_key_value_head_0(r):
    state = r.page.state
    n, d, heads, kv, hw, group, identity = sizes(state)
    own, tree = r.refs[0], r.trees["fig-kv-group"]
    (note,) = with_class(tree, "p", "kv-projections-note")
    note = text(note)
    if heads == 1:
        assert note.startswith("One query head has nobody to share with")
    elif kv < heads:
        assert note.startswith("Sharing is on") and f"(seed {state['seed']})" in note
    elif identity:
        assert note.startswith("Fewer key/value heads switch on random projections")
    else:
        assert note.startswith("Each query head has keys and values of its own")
    shown = min(group, 4)
    tables = find(r.trees["fig-kv-group-tables"], "table")
    assert [t[1]["aria-label"] for t in tables] == [f"query head {h} and key/value head 0" for h in range(shown)]
    shared = " (shared)" if group > 1 else ""
    for h, t in enumerate(tables):
        assert header(t) == ["token", f"queries of head {h}", f"keys{shared}", f"values{shared}"]
        rows = body_cells(t)
        assert len(rows) == min(n, 4)
        for i, row in enumerate(rows):
            for cell, vector in zip(row, (own.queries[h][i], own.keys[0][i], own.values[0][i])):
                assert cell.endswith(", …]") == (hw > 4), cell
                numbers = cell.strip("[]").removesuffix(", …").split(", ")
                assert len(numbers) == min(hw, 4) and all(close_printed(a, b) for a, b in zip(numbers, vector)), \
                    (h, i, cell, vector[:4])
    captions = find(tree, "figcaption")  # none for a query head alone whose tables show everything
    assert len(captions) == (0 if group == 1 and n <= 4 and hw <= 4 else 1), captions
    words = text(captions[0]) if captions else ""
    if group > 1:
        assert words.startswith(f"Key/value head 0 serves query heads {', '.join(map(str, range(group)))}.")
    assert (f"({group - 4} more query heads read it too.)" in words) == (group > 4)
    assert ("The tables show the first" in words) == (n > 4 or hw > 4)
    # issue 28: one cached row (token 0's, key/value head 0) read by the group's heads, each weight numpy's
    weights = {h: own.weights[h][n - 1][0] for h in range(shown)}
    (said,) = [text(p) for p in with_class(tree, "p", "kv-row-note")]
    if shown == 1:
        assert said == (f"Query head 0 alone reads key/value head 0's cached row for token 0; token {n - 1}'s "
                        f"query gives it {weights[0]:.2f}."), said
    else:
        names = ", ".join(map(str, range(shown - 1))) + f" and {shown - 1}"
        given = ", ".join(f"{weights[h]:.2f} in head {h}" for h in range(shown))
        differ = any(not np.array_equal(own.queries[h][n - 1], own.queries[0][n - 1]) for h in range(shown))
        why = "Their queries differ, so each weighs it on its own" if differ else "Their queries are the same here"
        assert said == (f"Query heads {names} read one cached row, token 0's key and value in key/value head 0. "
                        f"{why}: token {n - 1} gives that row {given}."), said
    drawn = [text(t) for t in find(tree, "text") if "kv-row-weight" in class_list(t)]
    assert drawn == [f"{weights[h]:.2f}" for h in range(shown)], drawn


@check
def slots_are_named_only_under_identity_slices(r):
    """Identity slices: the legend, the grid's header and the captions say which slots each head reads.
    Random projections: every head reads all of them, and nothing says a head reads its own."""
    n, d, heads, kv, hw, group, identity = sizes(r.page.state)
    legend = text(r.trees["fig-slot-legend"])
    grid_heads = [find(r.trees["token-grid"], "thead")[0], r.trees["token-grid-head"]]
    for grid_head in grid_heads:
        columns = find(grid_head, "th")[1:]
        assert len(columns) == d
        for s, th in enumerate(columns):
            readers = [text(span) for span in with_class(th, "span", "reader")]
            bands = [c for c in class_list(th) if c.startswith("head-")]
            if identity:
                assert readers == [f"head {s // hw}"] and bands == [f"head-{(s // hw) % 4}"], (s, readers, bands)
            else:
                assert not readers and not bands
    if identity:
        assert legend == "; ".join(f"head {h}: {slot_words(h * hw, (h + 1) * hw)}" for h in range(heads))
    else:
        assert legend.startswith("Random projections") and names_count(legend, heads) and f"all {d} slots" in legend
        said = [t for t in all_text(r) if re.search(r"reads? (its|their) own slots|head \d+ \(slots? \d", t)]
        assert not said, said[:2]


@check
def controls_show_the_state(r):
    state = r.page.state
    assert selected(r.trees["fig-options"], "projections")[1] == [state["projections"]]
    (seed,) = find(r.trees["fig-options"], "input", id="seed")
    assert seed[1]["value"] == str(state["seed"])
    (causal,) = find(r.trees["fig-options"], "input", id="causal")
    assert bool(causal[1].get("checked")) == state["causal"]
    (cross,) = find(r.trees["fig-cross"], "input", id="cross")
    assert bool(cross[1].get("checked")) == (state["context"] is not None)
    (distractors,) = find(r.trees["fig-distractors"], "input", id="distractors")
    assert distractors[1]["value"] == str(state["distractors"])


@check
def grids_hold_the_states_numbers_and_the_buttons_their_limits(r):
    state = r.page.state
    for key, fid, label in (("tokens", "token-grid", "token"), ("context", "context-grid", "context token")):
        rows = state[key]
        if rows is None:
            continue
        fields = find(r.trees[fid], "input")
        assert len(fields) == len(rows) * len(rows[0]) == len(state["tokens"][0]) * len(rows)
        for field in fields:
            t, s = int(field[1]["data-token"]), int(field[1]["data-slot"])
            assert field[1]["aria-label"] == f"{label} {t} slot {s}" and float(field[1]["value"]) == rows[t][s]
        add_off, remove_off, note = page_state.button_rules(len(rows))
        assert (add_off, remove_off) == (len(rows) >= 32, len(rows) == 1) and ("32" in note) == add_off


@check
def recipe_flow_says_the_states_shapes(r):
    n, d, heads, kv, hw, group, identity = sizes(r.page.state)
    tree = r.trees["fig-recipe-flow"]
    (desc,) = find(tree, "desc")
    words = text(desc)
    shared = ", shared by groups of query heads" if kv < heads else ""
    expected = [f"{plural(n, 'token')} of width {d} ({n} × {d}) {'is' if n == 1 else 'are'} projected to queries "
                f"{n} × {d} and to keys and values {n} × {kv * hw} each ({plural(kv, 'key/value head')}{shared})",
                f"into {n} × {n} softmax weights", f"multiplied by W_O ({d} × {d}) into {n} × {d}."]
    expected.append(f"split into {heads} heads of width {hw}, {n} × {hw} each" if heads > 1 else
                    f"stay one head of width {hw}, {n} × {hw}")
    missing = [part for part in expected if part not in words]
    assert not missing, (missing, words)
    drawn = heads if heads <= 4 else 3
    boxes = [text(t) for t in find(tree, "text") if "flow-shape" in class_list(t)]
    assert sorted(boxes) == sorted([f"{n} × {d}"] * 4 + [f"{n} × {kv * hw}"] * 2 +
                                   [f"{n} × {hw}", f"{n} × {n}", f"{n} × {hw}"] * drawn + ["…"] * 3 * (heads > 4))


# --- checks: section 9's competition --------------------------------------------------------------

@functools.cache
def relevant_by_hand(k):
    """The last token's weight on token 0 among [token 0, k distractors, the query], softmax by hand:
    head 0 over slots 0-1 and head 1 over slots 2-3 (scale 1/sqrt 2), the wide head over all four (1/2)."""
    from mha.lesson import COMPETITION_DISTRACTORS, COMPETITION_QUERY, COMPETITION_RELEVANT
    x = np.array([COMPETITION_RELEVANT, *[COMPETITION_DISTRACTORS[i % 2] for i in range(k)], COMPETITION_QUERY])
    q = x[-1]
    rows = [softmax_rows(x[:, :2] @ q[:2] / math.sqrt(2)), softmax_rows(x[:, 2:] @ q[2:] / math.sqrt(2)),
            softmax_rows(x @ q / 2)]
    return tuple(float(row[0]) for row in rows)  # head 0, head 1, the one wide head


def distractors_words(k):
    return "no distractors" if k == 0 else f"{k:,} distractor" + ("" if k == 1 else "s")


@check
def competition_says_the_weights_worked_by_hand(r):
    k = r.page.state["distractors"]
    head_0, head_1, wide = relevant_by_hand(k)
    sentence = text(r.trees["competition-now"])
    match = re.fullmatch(r"With (.+?), head 0 keeps ([\d.]+) of its row on token 0, the one wide head ([\d.]+) "
                         r"and head 1 ([\d.]+)\.", sentence)
    assert match and match[1] == distractors_words(k), sentence
    assert all(close_share(a, b) for a, b in zip(match.groups()[1:], (head_0, wide, head_1))), sentence
    now = table(r.trees["competition-table"], "weight on the relevant token")
    counts = (0,) if k == 0 else (0, k)  # one column at no distractors: two would be the same
    assert header(now) == ["head", *[distractors_words(c) for c in counts]]
    assert f"among {k + 2:,} tokens" in caption(now)
    assert_printed([[c.strip() for c in row] for row in body_cells(now)],
                   np.array([relevant_by_hand(c) for c in counts]).T, "competition table")
    held = [row[1].get("class") for row in find(find(now, "tbody")[0], "tr")]
    assert held == ["held", None, None], "head 0's row (the question's answer at 1,000) waits for Check: " + str(held)
    curve = table(r.trees["competition-curve"], "relevant weight by distractor count")
    counts = [int(text(row[2]).replace(",", "")) for row in find(find(curve, "tbody")[0], "tr")]
    assert k in counts and counts == sorted(set(counts)) and counts[0] == 0 and counts[-1] == 1000
    assert_printed([[c.strip() for c in row] for row in body_cells(curve)],
                   [relevant_by_hand(c) for c in counts], "competition curve")
    current = [row for row in find(find(curve, "tbody")[0], "tr") if row[1].get("aria-current")]
    assert len(current) == 1 and text(current[0][2]) == f"{k:,}"
    chart = find(r.trees["competition-chart"], "svg")[0]
    assert chart[1]["data-distractors"] == str(k)
    grid = sorted(float(line[1]["y1"]) for line in find(chart, "line") if "grid" in class_list(line))
    top, bottom = grid[0], grid[-1]  # the grid lines at weight 1 and weight 0
    dots = [float(c[1]["cy"]) for c in find(chart, "circle")]
    assert np.allclose(dots, [bottom - (bottom - top) * w for w in (head_0, head_1, wide)], atol=0.01), dots
    assert distractors_words(k) in text(chart)


# --- checks: section 6's KV calculator ------------------------------------------------------------

def published(name):
    return next((shape for shape in mha.MODEL_SHAPES if shape.name == name), None)


@check
def kv_bill_is_the_product_of_the_shape_and_the_fields(r):
    """2 (keys and values) x layers x key/value heads x head width x kept tokens x bytes x batch, worked here;
    the fields show what was typed, the model named is the one whose counts these are."""
    kv, texts = r.page.state["kv"], r.page.kv_read
    shape = kv.shape
    typed = {"kv-layers": shape.layers, "kv-query-heads": shape.heads, "kv-kv-heads": shape.kv_heads,
             "kv-head-width": shape.head_width, "kv-seq-len": kv.seq_len, "kv-batch": kv.batch,
             "kv-bytes": kv.bytes_per_value}
    assert {fid: float(texts[fid]) for fid in typed} == typed, (texts, typed)
    model = published(shape.name)
    if model is None:  # the reader's own shape: their numbers, or a model's just after "your own shape"
        assert shape.name == page_state.CUSTOM_MODEL and shape.window is None and shape.params is None
    else:
        assert model == shape
    layers, heads, kv_heads, hw = shape.counts
    kept = kv.seq_len if shape.window is None else min(kv.seq_len, shape.window)
    per_token = 2 * layers * kv_heads * hw * kv.bytes_per_value
    cache = per_token * kept * kv.batch
    unshared = 2 * layers * heads * hw * kv.bytes_per_value * kept * kv.batch
    bill = r.trees["kv-bill"]
    rows = {text(row[2]): row for row in find(bill, "tr")}
    said = text(rows["per token"][3])
    match = re.fullmatch(r"2 \(keys and values\) × (\d+) layers? × (\d+) key/value heads? × (\d+) numbers? × "
                         r"([\d.]+) bytes? = (.+)", said)
    assert match and [int(x) for x in match.groups()[:3]] == [layers, kv_heads, hw], said
    assert float(match[4]) == kv.bytes_per_value and match[5] == bytes_text(per_token), said
    values = [float(node[1]["data-value"]) for node in nodes(bill) if "data-value" in node[1]]
    assert math.isclose(values[0], per_token) and math.isclose(values[1], cache), (values, per_token, cache)
    window = f" (the last {shape.window:,} of {kv.seq_len:,}: a sliding window)" if kept < kv.seq_len else ""
    conversations = plural(kv.batch, "conversation")
    assert text(rows["KV cache"][3]) == (f"{bytes_text(per_token)} × {plural(kept, 'token')}{window} × "
                                         f"{conversations} = {bytes_text(cache)}")
    full = rows[f"with one key/value head per query head ({heads})"]
    assert math.isclose(float(full[3][1]["data-value"]), unshared) and text(full[3]) == bytes_text(unshared)
    saving = rows["saved by sharing keys and values"][3]
    assert math.isclose(float(saving[1]["data-value"]), 1 - kv_heads / heads, abs_tol=1e-15)
    assert text(saving) == f"{1 - kv_heads / heads:.1%}"
    if model is None:
        assert text(rows["the weights"][3]) == "not known for your own shape"
    else:
        weights = model.params * 2
        (row,) = [row for name, row in rows.items() if name.startswith("the weights: ")]
        assert text(row[3]) == bytes_text(weights) and f"{model.params / 1e9:.2f} billion" in text(row[2])
        assert text(rows["weights and KV cache together"][3]) == bytes_text(weights + cache)
    assert caption(bill).startswith(f"{shape.name}") and caption(bill).endswith(
        f": {plural(kv.seq_len, 'token')}, {conversations}")
    asked = shape.name in ("Llama-2-7B", "Llama-3-70B")  # section 6's question: their bills wait for its Check
    notes = [text(p) for p in with_class(bill, "p", "kv-held")]
    assert notes == ([f"{shape.name}'s bill waits for your answer to the question above."] if asked else []), notes
    assert ("held" in class_list(find(bill, "table")[0])) == asked, shape.name
    warning = text(with_class(bill, "p", "kv-warning")[0])
    beyond = shape.context is not None and kv.seq_len > shape.context
    assert bool(warning) == beyond and (not beyond or f"{kv.seq_len:,} tokens is more than the {shape.context:,}"
                                        in warning), warning
    drawn = {field[1]["id"]: float(field[1]["value"]) for field in find(r.trees["kv-fields"], "input")}
    assert drawn == typed, "kv-fields, drawn again after a model switch, shows the state's numbers"


@check
def kv_models_table_bills_every_published_model_at_the_fields_length(r):
    kv = r.page.state["kv"]
    tree = table(r.trees["kv-models"], "KV cache by model")
    rows = find(find(tree, "tbody")[0], "tr")
    assert len(rows) == len(mha.MODEL_SHAPES)
    for row, model in zip(rows, mha.MODEL_SHAPES):
        assert text(row[2]).startswith(model.name)
        kept = kv.seq_len if model.window is None else min(kv.seq_len, model.window)
        per_token = 2 * model.layers * model.kv_heads * model.head_width * kv.bytes_per_value
        cache = find(row, "td")[5]
        assert math.isclose(float(cache[1]["data-value"]), per_token * kept * kv.batch), model.name
        assert text(cache).startswith(bytes_text(per_token * kept * kv.batch))
        assert ("beyond context" in text(cache)) == (kv.seq_len > model.context), (model.name, kv.seq_len)
        assert text(find(row, "td")[4]) == bytes_text(per_token)
        assert text(find(row, "td")[6]) == f"{1 - model.kv_heads / model.heads:.1%}"
        assert text(find(row, "td")[1]) == f"{model.heads} / {model.kv_heads}"
    per_number = f"{kv.bytes_per_value:g} byte" + ("" if kv.bytes_per_value == 1 else "s")
    assert caption(tree).startswith(f"{plural(kv.seq_len, 'token')} × {plural(kv.batch, 'conversation')}, "
                                    f"{per_number} per number")


# --- checks: section 4's buttons --------------------------------------------------------------------

@check
def section_4s_buttons_set_what_their_sentence_says(r):
    last = r.setting.actions[-1][0]
    state, status = r.page.state, r.page.status
    if last not in PRESETS:
        return
    lesson = [list(row) for row in mha.LESSON_TOKENS]
    projections = "identity slices" if state["projections"] == "identity" else \
        f"random projections (seed {state['seed']})"
    calculator = [a for a in r.setting.actions if a[0] in ("kv-model", "kv-field")]
    assert not calculator or (state["kv"].shape.name, state["kv"].seq_len) == ("Falcon-7B", 3000), \
        "every button leaves the KV calculator as it was"
    if last == "reset-all":
        assert state == {**page_state.default_state(), "kv": state["kv"], "digits": state["digits"]}
        assert "identity slices, seed 0, no mask, no cross-attention, no distractors" in status
        return
    assert state["distractors"] == (30 if ("distractors", "30") in r.setting.actions else 0)
    assert (state["heads"], state["kv_heads"]) == (2, 2) and len(state["tokens"][0]) == 4
    if last == "preset-lesson":
        assert state["tokens"] == lesson
        assert status == (f"Put the lesson's two tokens back with 2 heads; kept {projections} and the causal mask "
                          f"({'on' if state['causal'] else 'off'}).")
        return
    assert not state["causal"] and r.page.shown["tokens"] == lesson, "the lesson's tokens drawn first"
    assert state["tokens"][0] == lesson[0] and state["tokens"][1][:2] == lesson[1][:2]
    assert state["tokens"][1][2:] == state["tokens"][0][2:] == [0.0, 1.0], "token 1 gets token 0's time stamp"
    assert state["projections"] == EXERCISE_PROJECTIONS[last] and status.startswith(f"Set {projections}, 2 heads")
    if last == "try-exercise":  # identity slices: only head 1 and the wide head read slots 2-3
        moved = [text(li) for li in find(r.trees["moved-summary"], "li")]
        assert moved[0] == "head 0: unchanged" and moved[1].startswith("head 1: moved") and \
            moved[2].startswith("one head: moved"), moved


EXERCISE_PROJECTIONS = {"try-exercise": "identity", "try-exercise-random": "random"}


# --- the tests: each check, true at every setting ---------------------------------------------------

def test_the_sweep_presses_every_control_and_button_the_page_listens_to():
    pressed = {a[0] for s in SETTINGS for a in s.actions} | {a[1][0] for s in SETTINGS for a in s.actions
                                                            if a[0] == "refused"}
    pressed |= {a[1] for s in SETTINGS for a in s.actions if a[0] == "kv-field"}
    pressed |= {f"{way}-{kind}" for way in ("add", "remove") for kind in ("token", "context-token")}  # fill, empty
    assert {"fill", "empty"} <= pressed
    controls = controls_of_the_page()
    assert len(controls["INPUTS"]) > 10 and len(controls["ACTIONS"]) > 5
    missing = (controls["INPUTS"] | controls["ACTIONS"]) - pressed - SKIPPED_CONTROLS
    assert not missing, f"never swept: {sorted(missing)}"
    calculator = {tuple(a for a in s.actions if a[0] in ("kv-model", "kv-field")) for s in SETTINGS}
    assert all(tuple(kv_actions(*c)) in calculator for c in KV_PRODUCT), "a KV calculator setting left out"


def test_every_setting_renders_every_live_figure():
    assert_true_everywhere(render)


def test_each_action_is_taken_or_refused_as_the_setting_says_and_a_refusal_is_a_sentence():
    assert_true_everywhere(actions_are_taken_or_refused_as_listed)


def test_nothing_prints_nan_inf_or_none_at_any_setting():
    assert_true_everywhere(nothing_prints_nan_inf_or_none)


def test_no_text_says_one_of_anything_in_the_plural_at_any_setting():
    assert_true_everywhere(no_count_of_one_is_said_in_the_plural)


def test_the_head_tables_say_numpys_weights_slots_sharing_and_changes_at_every_setting():
    assert_true_everywhere(head_tables_say_numpys_weights)


def test_the_cross_tables_are_queries_by_context_tokens_of_numpys_weights_at_every_setting():
    assert_true_everywhere(cross_tables_are_queries_by_context_tokens_of_numpys_weights)


def test_the_outputs_are_numpys_concatenation_and_output_at_every_setting():
    assert_true_everywhere(outputs_are_numpys_concatenation_and_its_product_with_w_o)


def test_the_moved_summary_counts_numpys_changes_at_every_setting():
    assert_true_everywhere(moved_summary_counts_numpys_changes)


def test_a_patch_carries_the_numbers_its_tables_show_at_every_setting():
    assert_true_everywhere(patches_carry_the_numbers_the_tables_show)


def test_section_4s_second_exercise_quotes_numpys_rows_at_the_states_seed_at_every_setting():
    assert_true_everywhere(section_4s_second_exercise_quotes_numpys_rows_at_the_states_seed)


def test_section_3s_note_names_width_heads_and_key_value_heads_at_every_setting():
    assert_true_everywhere(section_3s_note_names_the_states_width_heads_and_key_value_heads)


def test_the_pickers_show_the_state_and_offer_only_counts_that_divide_at_every_setting():
    assert_true_everywhere(pickers_show_the_states_sizes_and_only_the_counts_that_divide)


def test_the_sharing_diagram_groups_query_heads_as_the_state_shares_them_at_every_setting():
    assert_true_everywhere(sharing_diagram_groups_query_heads_as_the_state_shares_them)


def test_no_sentence_calls_keys_shared_when_every_query_head_has_its_own():
    assert_true_everywhere(no_sentence_calls_keys_shared_unless_query_heads_share_them)


def test_section_6s_group_shows_numpys_queries_keys_and_values_at_every_setting():
    assert_true_everywhere(kv_group_shows_numpys_queries_keys_and_values_of_key_value_head_0)


def test_slots_are_named_only_under_identity_slices_at_every_setting():
    assert_true_everywhere(slots_are_named_only_under_identity_slices)


def test_the_controls_show_the_state_at_every_setting():
    assert_true_everywhere(controls_show_the_state)


def test_the_grids_hold_the_states_numbers_and_the_buttons_their_limits_at_every_setting():
    assert_true_everywhere(grids_hold_the_states_numbers_and_the_buttons_their_limits)


def test_the_recipe_flow_says_the_states_shapes_at_every_setting():
    assert_true_everywhere(recipe_flow_says_the_states_shapes)


def test_section_9_says_the_weights_worked_by_hand_at_every_distractor_count():
    assert_true_everywhere(competition_says_the_weights_worked_by_hand)


def test_the_kv_bill_is_the_product_of_the_shape_and_the_fields_at_every_setting():
    assert_true_everywhere(kv_bill_is_the_product_of_the_shape_and_the_fields)


def test_the_kv_models_table_bills_every_published_model_at_every_setting():
    assert_true_everywhere(kv_models_table_bills_every_published_model_at_the_fields_length)


def test_section_4s_buttons_set_what_their_sentence_says_from_every_state():
    assert_true_everywhere(section_4s_buttons_set_what_their_sentence_says)


def test_the_static_figures_build_from_the_default_state_without_nan_inf_or_none():
    state = page_state.default_state()
    view = page_state.compute(state)
    for fid in sorted(set(STATIC) - READ_THE_RUN):
        html = to_html(["div", {}, *FIGURES[fid].build(state, view, None)])
        assert not BROKEN.search(html), fid


def test_the_plural_check_catches_a_count_of_one_and_passes_an_index():
    assert one_with_plural("each of the 1 heads reads") == ["1 heads"]
    assert one_with_plural("2 of 1 key/value heads") == ["1 key/value heads"]
    assert one_with_plural("the queries split in 1") == ["split in 1"]
    assert one_with_plural("head 1 reads slots 2-3; 1 head has; 1,000 tokens; 0.1 heads; seed 1 learns") == []


# --- section 8: the story of a run, over the hundred seeds ------------------------------------------

SEED_ROWS = seeds.sweep()["seeds"]
HEADS_22 = [(0, 0), (0, 1), (1, 0), (1, 1)]  # two layers of two heads: the page's model
LINES = (0.4, 0.8, 0.9)  # mha.training's lines: previous-token score, induction score, held-out accuracy
AT_THE_LINES = [  # rows made up at and just past the lines, with the seed table's fields
    {"seed": "at the lines", "accuracy": 0.9, "previous_token_head": [0, 1], "previous_token": 0.4,
     "induction_head": [1, 0], "induction": 0.8},
    {"seed": "just under", "accuracy": 0.8999, "previous_token_head": [0, 0], "previous_token": 0.3999,
     "induction_head": [1, 1], "induction": 0.7999},
    {"seed": "a stronger previous-token head beside the induction head", "accuracy": 0.95,
     "previous_token_head": [0, 1], "previous_token": 0.41, "induction_head": [1, 1], "induction": 0.9,
     "beside": [1, 0, 0.6]},
    {"seed": "early induction", "accuracy": 0.93, "previous_token_head": None, "previous_token": None,
     "induction_head": [0, 0], "induction": 0.85},
    {"seed": "weak induction in layer 0", "accuracy": 0.97, "previous_token_head": None, "previous_token": None,
     "induction_head": [0, 1], "induction": 0.38},
    {"seed": "stalled", "accuracy": 0.41, "previous_token_head": [0, 0], "previous_token": 0.3,
     "induction_head": [1, 0], "induction": 0.2},
    {"seed": "a pair that has not learned", "accuracy": 0.6, "previous_token_head": [0, 0], "previous_token": 0.45,
     "induction_head": [1, 1], "induction": 0.85},
    {"seed": "two previous-token heads in layer 0", "accuracy": 0.95, "previous_token_head": [0, 0],
     "previous_token": 0.6, "induction_head": [1, 0], "induction": 0.9, "beside": [0, 1, 0.45]},
]


def formed_a_pair(row):
    """The rule, in this file's words: the strongest induction head scores at least 0.8, and the strongest
    previous-token head of an earlier layer at least 0.4 (a head beside or after it cannot have written what it
    reads; a row whose induction head is in layer 0 has none)."""
    previous, induction, _ = LINES
    return (row["induction"] >= induction and row["previous_token_head"] is not None
            and row["previous_token"] >= previous and row["previous_token_head"][0] < row["induction_head"][0])


def shown(x, line):
    """x as this file expects it printed beside its line: 2 decimals, or more until the comparison reads true."""
    digits = 2
    while (round(x, digits) >= line) != (x >= line):
        digits += 1
    return f"{x:.{digits}f}"


def measured_from(row):
    """A measurement (mha.training.measure's dict) with the row's top heads and scores: the other heads score
    below them (but a row's "beside" head, another previous-token score: in the induction head's layer, or a second
    in layer 0), and
    switching off head i leaves the accuracy times 0.5 + 0.1 i (head (0, 0) matters most)."""
    top_induction = HEADS_22.index(tuple(row["induction_head"]))
    scores = [[0.01, 0.01] for _ in HEADS_22]
    if row["previous_token_head"] is not None:
        scores[HEADS_22.index(tuple(row["previous_token_head"]))][0] = row["previous_token"]
    if "beside" in row:
        layer, head, value = row["beside"]
        scores[HEADS_22.index((layer, head))][0] = value
    scores[top_induction][1] = row["induction"]
    ablated = [None] * 2 ** len(HEADS_22)
    ablated[0] = row["accuracy"]
    for i in range(len(HEADS_22)):
        ablated[1 << i] = row["accuracy"] * (0.5 + 0.1 * i)
    copy = {"weights": [0.9, 0.8], "guess": 2, "p": 0.95, "continuations": [[2, 0.95], [2, 0.95]]}
    return {"heads": [list(h) for h in HEADS_22], "scores": scores, "ablated": ablated,
            "scores_off": [scores] * len(ablated), "first_token": [[0.3, 0.25] for _ in HEADS_22],
            "copy": {"head": list(row["induction_head"]), "repeat": copy, "near": copy}}


def report_rows(row):
    """mha.training.classify's input, one row per head, from a seed table's row."""
    measured = measured_from(row)
    return [{"layer": layer, "head": head, "previous_token": s[0], "induction": s[1]}
            for (layer, head), s in zip(HEADS_22, measured["scores"])]


@pytest.mark.parametrize("finished", [True, False], ids=["at the end", "mid-run"])
@pytest.mark.parametrize("row", SEED_ROWS + AT_THE_LINES, ids=lambda row: f"seed {row['seed']}")
def test_section_8s_story_says_what_the_rule_finds_in_each_seeds_numbers(row, finished):
    """At the run's end a seed without the pair learned with a weaker pair or none (or stalled); mid-run it is not a
    pair yet."""
    pair = formed_a_pair(row)
    previous, induction, learned = LINES
    verdict = mha.training.classify(report_rows(row), row["accuracy"])
    assert verdict["kind"] == ("pair" if pair else "other") and verdict["learned"] == (row["accuracy"] >= learned)
    if "kind" in row:  # the seed table's own verdict, from the run itself
        assert row["kind"] == verdict["kind"] and row["learned"] == verdict["learned"]
    said = text(story_figures.story(story_figures.describe_run(measured_from(row), finished), f"seed {row['seed']}"))
    il, ih = row["induction_head"]
    opening = (f"Seed {row['seed']} reaches {100 * row['accuracy']:.1f}% held-out. Its top induction head: "
               f"layer {il} head {ih} ({shown(row['induction'], induction)})")
    if row["previous_token_head"] is not None:
        pl, ph = row["previous_token_head"]
        assert pl < il  # never a head compared with itself, or with one beside it
        opening += (f"; the top previous-token head before it: layer {pl} head {ph} "
                    f"({shown(row['previous_token'], previous)})")
    assert said.startswith(opening + ". ")
    early = row["previous_token_head"] is None and row["induction"] >= induction
    assert ("the pair formed" in said) == pair
    assert "induction score falls from" not in said and "stays at" not in said  # fig-train-reads, after Check
    reads = text(story_figures.reads_through(story_figures.describe_run(measured_from(row), finished)))
    assert ("'s induction score " in reads) == (row["induction_head"][0] > 0)  # each earlier head, switched off
    assert ("no earlier layer to read from" in said) == early
    rest = not pair and not early
    assert ("Not a pair yet" in said) == (rest and not finished)
    assert ("No pair:" in said) == (rest and finished)
    assert ("still below 90.0%" in said) == (rest and finished and row["accuracy"] < learned)
    assert ("It learned all the same, leaning most on layer 0 head 0" in said) == \
        (rest and finished and row["accuracy"] >= learned)  # measured_from: head (0, 0) costs the most
    if rest:
        reasons = {f"the previous-token score, {shown(row['previous_token'] or 0, previous)}, is under 0.4":
                   row["previous_token"] is not None and row["previous_token"] < previous,
                   f"the induction score, {shown(row['induction'], induction)}, is under 0.8":
                   row["induction"] < induction}
        assert {reason: reason in said for reason in reasons} == reasons
        for printed, line in re.findall(r"(\d\.\d+), is under (0\.\d)", said):  # beside its line, it reads true
            assert float(printed) < float(line)


@pytest.mark.parametrize("row", SEED_ROWS + AT_THE_LINES, ids=lambda row: f"seed {row['seed']}")
def test_section_8s_heads_note_says_what_each_heads_numbers_show(row):
    """The note under the scores table: the previous-token job shared when two heads of that layer pass 0.4, each
    head whose switching off leaves the accuracy where it was, and the induction head's average weight on the first
    token (row by row on the sample only where the run's params are given: test_training_heads)."""
    measured = measured_from(row)
    said = text(story_figures.heads_note(story_figures.describe_run(measured)))
    passing = [h for h, s in zip(HEADS_22, measured["scores"]) if row["previous_token_head"] is not None
               and h[0] == row["previous_token_head"][0] and s[0] >= LINES[0]]
    assert ("shares the previous-token job" in said) == (len(passing) > 1)
    if len(passing) > 1:  # each alone off, then all of them (not measured here: measured_from has single masks)
        alone = "% and ".join(f"{100 * measured['ablated'][1 << HEADS_22.index(h)]:.1f}" for h in passing)
        assert f"accuracy with one off: {alone}%." in said
    assert "no cost" not in said  # measured_from: every head costs something
    il, ih = row["induction_head"]
    assert said.endswith(f"Where a letter has no earlier twin, layer {il} head {ih} puts 0.30 of its weight on the "
                         f"first token on average (even weights: 0.25).")


def test_section_8s_heads_note_names_a_head_that_costs_nothing_a_shared_job_and_a_sink():
    row = dict(SEED_ROWS[0])
    measured = measured_from(row)
    measured["ablated"][1 << 2] = measured["ablated"][0]  # layer 1 head 0 off: the accuracy stays
    pl, ph = row["previous_token_head"]
    measured["scores"][HEADS_22.index((pl, 1 - ph))][0] = 0.45  # the other head of that layer passes 0.4 too
    measured["first_token"][HEADS_22.index(tuple(row["induction_head"]))] = [0.5, 0.25]
    said = text(story_figures.heads_note(story_figures.describe_run(measured)))
    assert f"Without layer 1 head 0: {100 * row['accuracy']:.1f}%, no cost." in said
    assert f"Layer {pl} shares the previous-token job: layer {pl} head 0 (" in said and "each pass 0.4" in said
    assert "both:" not in said  # measured_from measures each head alone off only
    measured["ablated"][sum(1 << HEADS_22.index((pl, h)) for h in (0, 1))] = 0.25
    assert ", both: 25.0%." in text(story_figures.heads_note(story_figures.describe_run(measured)))
    assert "puts 0.50 of its weight on the first token on average (even weights: 0.25)" in said


def test_section_8s_seed_figure_marks_each_seed_by_the_rule():
    """Each dot's title and the table's rows: 'the pair' where the rule finds one, else how it learned for a seed
    that reaches 90% held-out and 'stalled' for one that does not; the caption names the closest call."""
    assert tuple(seeds.sweep()["setting"]["heads"]) == (2, 2), "measured_from names two layers of two heads"
    words = {"pair": "the pair", "stalled": "stalled"}
    kind = ["pair" if formed_a_pair(row) else "other" if row["accuracy"] >= 0.9 else "stalled" for row in SEED_ROWS]
    for width in (seeds.WIDTH, seeds.NARROW):
        dots = find(seeds.chart(SEED_ROWS, width), "circle")
        assert [f"seed-{k}" in dot[1]["class"] for dot, k in zip(dots, kind)] == [True] * len(SEED_ROWS)
        if width == seeds.NARROW:
            assert not any(find(dot, "title") for dot in dots)  # a phone cannot hover: the table lists the seeds
            continue
        titles = [text(find(dot, "title")[0]) for dot in dots]
        def way(row):  # a seed that learned without the pair: is there a previous-token head, and are both under?
            if row["previous_token_head"] is None:
                return "no previous-token head"
            under = row["previous_token"] < LINES[0] and row["induction"] < LINES[1]
            return "scores under the lines" if under else "a score under its line"
        assert titles == [f"seed {row['seed']}: {100 * row['accuracy']:.1f}% held-out, "
                          f"{words[k] if k != 'other' else way(row)}; top induction: "
                          f"layer {row['induction_head'][0]} head {row['induction_head'][1]}, {shown(row['induction'], 0.8)}"
                          for row, k in zip(SEED_ROWS, kind)]
    listed = {text(row[2]): [text(td) for td in find(row, "td")] for row in find(seeds.table(SEED_ROWS), "tr")[1:]}
    for k, label in seeds.KINDS.items():
        mine = [str(row["seed"]) for row, kk in zip(SEED_ROWS, kind) if kk == k]
        assert listed[label][0] == str(len(mine))
        assert listed[label][1] == ("the rest" if k == "pair" else ", ".join(mine))
    pairs = sum(1 for row, k in zip(SEED_ROWS, kind) if k == "pair" and row["accuracy"] >= 0.9)
    learned = sum(1 for row in SEED_ROWS if row["accuracy"] >= 0.9)
    assert seeds.summary(SEED_ROWS).startswith(f"{learned} of {len(SEED_ROWS)} seeds reach 90% held-out accuracy; "
                                               f"{pairs} of them form")
    said = text(seeds.figure(SEED_ROWS))
    for key, line, name in (("previous_token", 0.4, "previous-token"), ("induction", 0.8, "induction")):
        closest = min((row for row in SEED_ROWS if row[key] is not None), key=lambda row: abs(row[key] - line))
        printed = next(f"{closest[key]:.{d}f}" for d in range(2, 17) if float(f"{closest[key]:.{d}f}") != line
                       and (float(f"{closest[key]:.{d}f}") > line) == (closest[key] > line))  # the gap shows
        assert (f"seed {closest['seed']}'s {name} head scores {printed}, just "
                f"{'under' if closest[key] < line else 'over'} {line}") in said


def test_a_score_said_just_over_its_line_shows_the_gap():
    from page.dom import beside

    assert beside(0.4014, 0.4, gap=True) == "0.401" and beside(0.7998, 0.8, gap=True) == "0.7998"
    assert beside(0.42, 0.4, gap=True) == "0.42" and beside(0.4, 0.4, gap=True) == "0.40"
    assert beside(0.4014, 0.4) == "0.40"  # without gap: 0.40 reaches 0.4, as 0.4014 does


# --- section 1: the sentences under the blend, over tokens a reader may type -----------------------

BLEND_TOKENS = {  # name -> section 1's three tokens (the last asks, under the causal mask)
    "as loaded": mha.BLEND_TOKENS,
    "both heads pick token 0": [[6.0, 0.0, 6.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]],
    "three equal tokens": [[1.0, 1.0, 1.0, 1.0]] * 3,
    "token 0 negative": [[-3.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 2.5], [1.0, 0.0, 1.0, 0.0]],
    "the query asks for nothing": [[6.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    "the query picks itself": [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0], [5.0, 0.0, 5.0, 0.0]],
    "large": [[1e3, 0.0, -1e3, 0.0], [-1e3, 5.0, 1e3, 0.0], [1.0, 0.0, 1.0, 0.0]],
    "near half": [[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.03, 0.0, 0.03, 0.0]],
}


@pytest.mark.parametrize("tokens", BLEND_TOKENS.values(), ids=BLEND_TOKENS)
def test_section_1s_sentences_say_numpys_weights_and_outputs_for_any_tokens(tokens):
    """Issue 28: each head's return is 'mostly token t's own' slots exactly when numpy gives t more than half the
    weight, else 'an average'; the vectors and weights are numpy's, to 2 decimals."""
    x = np.array(tokens, dtype=float)
    state = page_state.changed(page_state.default_state(), blend=[list(row) for row in tokens])
    svg, wide_note, concat_note, _ = FIGURES["fig-blend"].build(state, page_state.compute(state), None)
    parts = [("One wide head: ", 0, 4, text(wide_note))]
    said = text(concat_note)
    assert said.startswith("Two heads. "), said
    parts += [(f"Head {h}'s part, ", 2 * h, 2 * h + 2, said) for h in range(2)]
    for subject, start, stop, sentence in parts:
        q, k = x[-1, start:stop], x[:, start:stop]
        w = softmax_rows(q @ k.T / math.sqrt(stop - start))
        out = w @ k
        shown = "[" + ", ".join(f"{v:.2f}" for v in out) + "]"
        sep = ", " if subject.startswith("Head") else " "
        claim = sentence[sentence.index(subject) + len(subject):].split(". ")[0].rstrip(".")
        top = int(np.argmax(w))
        if w[top] > 0.5:
            own = "[" + ", ".join(f"{v:.4f}".rstrip("0").rstrip(".") for v in x[top, start:stop]) + "]"
            assert claim == f"{shown}{sep}is mostly token {top}'s own {own} (weight {w[top]:.2f})", claim
        else:
            assert claim.startswith(f"{shown}{sep}is an average: no token gets more than half its weight ("), claim
            assert f"{w.max():.2f}" in claim, claim
