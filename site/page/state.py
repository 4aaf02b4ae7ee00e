"""The page's live figures, composed: which trees go into which element for a figure state.

A state is fragment.default_state()'s dict (tokens, heads, kv_heads, causal,
projections, seed, context, distractors). build.py pre-renders prerender()
into index.html's <!--render:ID--> marks; main.py draws the same functions
live, so the numbers before and after Python starts are the same numbers.
No math and no DOM here: mha computes, lesson_figures draws trees.
"""

from typing import NamedTuple

import fragment
import lesson_figures as lf
import mha
from lesson_trees import count_select

# Element ids: the contract with index.html, main.py and the browser tests.
SIZE_ID = "fig-size"            # width and heads pickers (section 2)
LEGEND_ID = "fig-slot-legend"   # which slots each head reads (section 2)
OPTIONS_ID = "fig-options"      # projections, seed, causal mask (section 3)
GRID_ID = "token-grid"          # the token vectors (section 3)
TOKEN_BUTTONS_ID = "fig-token-buttons"
HEADS_ID = "head-tables"        # every head's weights and the one wide head's (section 3)
OUTPUTS_ID = "fig-outputs"      # concatenated head outputs and the output after w_o (section 3)
PRESETS_ID = "fig-presets"      # lesson example, exercise, reset (section 4)
SUMMARY_ID = "moved-summary"    # what the last edit moved, per head (section 4)
CROSS_ID = "fig-cross"          # the cross-attention switch (section 6)
CONTEXT_GRID_ID = "context-grid"
CROSS_TABLES_ID = "cross-tables"
KV_SHARING_ID = "fig-kv-sharing"  # key/value heads picker and who shares what (section 7)
KV_CACHE_ID = "fig-kv-cache"      # the cache calculator (section 7)
KV_BILL_ID = "kv-bill"
COMPETITION_TABLE_ID = "competition-table"

CROSS_SUFFIX = " cross-attention weights"  # cross tables: 'head 0 cross-attention weights'
DEFAULT_CONTEXT = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]
DEFAULT_MODEL = "Llama-3-8B"
DEFAULT_SEQ_LEN = 8192


class View(NamedTuple):
    """Everything the head figures show for one state, all computed by mha."""

    result: object        # mha.MultiHeadResult, self-attention over the tokens
    wide: list            # the one wide head's weights
    cross: object = None  # mha.MultiHeadResult with keys and values from the context, or None
    cross_wide: list = None

    def snapshot(self):
        """The weights to compare the next edit with: self tables, then cross tables (if any)."""
        own = lf.weights_snapshot(self.result, self.wide)
        return own, (None if self.cross is None else lf.weights_snapshot(self.cross, self.cross_wide))

    def shape(self):
        """Tables and their sizes: equal shapes mean a redraw can patch numbers in place."""
        cross = None if self.cross is None else (len(self.cross.weights), len(self.cross.weights[0][0]))
        return (len(self.result.weights), len(self.result.weights[0]), self.result.width,
                self.result.kv_head_of, cross)


_kept = {}  # (width, heads, kv_heads, seed) -> the same projections object, so mha re-projects one row


def projections(state):
    """{} for identity slices, else mha.random_projections for the state's sizes and seed (kept)."""
    if state["projections"] != "random":
        return {}
    key = (len(state["tokens"][0]), state["heads"], state["kv_heads"], state["seed"])
    if key not in _kept:
        _kept.clear()
        _kept[key] = mha.random_projections(key[0], key[1], kv_heads=key[2], seed=key[3])
    return _kept[key]


def compute(state):
    """The View of a state; ValueError (from mha) if the state cannot be computed."""
    weights = projections(state)
    tokens, heads, kv, causal = state["tokens"], state["heads"], state["kv_heads"], state["causal"]
    result = mha.multi_head_attention(tokens, heads, kv_heads=kv, causal=causal, **weights)
    wide = mha.multi_head_attention(tokens, 1, causal=causal).weights[0]  # the one wide head, weights only
    if state["context"] is None:
        return View(result, wide)
    context = state["context"]
    cross = mha.multi_head_attention(tokens, heads, kv_heads=kv, context=context, **weights)
    _, cross_wide = mha.single_head_attention(tokens, context=context)
    return View(result, wide, cross, cross_wide)


# --- the parts, one function per element id ---------------------------------------

def size_controls(state):
    width = len(state["tokens"][0])
    return [lf.width_picker(width), " ", lf.heads_picker(width, state["heads"])]


def options_controls(state):
    """Projections (identity or seeded learned), the seed, and the causal mask switch."""
    chosen = state["projections"]
    options = [["option", {"value": value, **({"selected": "selected"} if value == chosen else {})}, text]
               for value, text in (("identity", "identity slices"), ("random", "learned (seeded random)"))]
    causal = {"type": "checkbox", "id": "causal", **({"checked": "checked"} if state["causal"] else {})}
    return [["label", {"class": "control"}, "projections ", ["select", {"id": "projections"}, *options]], " ",
            ["label", {"class": "control"}, "seed ",
             ["input", {"id": "seed", "type": "text", "inputmode": "numeric", "size": "10", "autocomplete": "off",
                        "aria-describedby": "seed-error", "value": str(state["seed"])}]], " ",
            ["label", {"class": "control"}, ["input", causal], " causal mask (each token sees only itself and earlier tokens)"]]


def grid(tokens, heads=None, label="token"):
    return [lf.token_grid(tokens, heads, label)]


def token_buttons(tokens, label="token"):
    return [lf.token_buttons(len(tokens), label)]


def heads(view, previous=None):
    return [lf.head_tables(view.result, view.wide, previous)]


def outputs(view):
    return [lf.output_tables(view.result)]


def summary(view, previous=None):
    return [lf.moved_summary(view.result, view.wide, previous)]


def cross_switch(state):
    on = {"checked": "checked"} if state["context"] is not None else {}
    return [["label", {"class": "control"}, ["input", {"type": "checkbox", "id": "cross", **on}],
             " cross-attention: keys and values from a second sequence (the context)"]]


def cross_tables(view, previous=None):
    if view.cross is None:
        return []
    return [lf.head_tables(view.cross, view.cross_wide, previous, "context token", CROSS_SUFFIX)]


def kv_sharing(view):
    """Query heads (the same choice as section 2's), key/value heads, and who shares what."""
    heads_ = len(view.result.kv_head_of)
    width = view.result.width
    return [count_select("sharing-heads", "query heads in the figure", mha.head_choices(width), heads_), " ",
            lf.kv_heads_picker(heads_, len(set(view.result.kv_head_of))), lf.sharing_diagram(view.result.kv_head_of)]


def model_shape(name):
    """The mha.MODEL_SHAPES entry called name."""
    return next(shape for shape in mha.MODEL_SHAPES if shape.name == name)


def kv_calculator(shape=None, seq_len=DEFAULT_SEQ_LEN):
    """The model picker and the fields, filled from a preset shape."""
    shape = shape or model_shape(DEFAULT_MODEL)
    return [["label", {"class": "control"}, "model ", lf.model_select(shape.name)],
            ["div", {"id": "kv-fields"}, lf.kv_cache_fields(shape, seq_len)]]


def kv_bill(shape=None, seq_len=DEFAULT_SEQ_LEN, bytes_per_value=2):
    return [lf.kv_cache_readout(shape or model_shape(DEFAULT_MODEL), seq_len, bytes_per_value)]


def competition(distractors):
    return [lf.competition_figure(distractors)]


def prerender():
    """Element id -> its children in the default state: what build.py writes into index.html."""
    state = fragment.default_state()
    view = compute(state)
    return {
        SIZE_ID: size_controls(state), LEGEND_ID: [lf.slot_legend(view.result)],
        OPTIONS_ID: options_controls(state), GRID_ID: grid(state["tokens"], state["heads"]),
        TOKEN_BUTTONS_ID: token_buttons(state["tokens"]), HEADS_ID: heads(view), OUTPUTS_ID: outputs(view),
        PRESETS_ID: [lf.preset_buttons()], SUMMARY_ID: summary(view),
        CROSS_ID: cross_switch(state), CONTEXT_GRID_ID: [], CROSS_TABLES_ID: [],
        "context-buttons": token_buttons(DEFAULT_CONTEXT, "context token"),
        KV_SHARING_ID: kv_sharing(view), KV_CACHE_ID: kv_calculator(), KV_BILL_ID: kv_bill(),
        "kv-models": [lf.kv_cache_table(DEFAULT_SEQ_LEN)],
        "fig-distractors": [lf.distractor_input(state["distractors"])],
        COMPETITION_TABLE_ID: competition(state["distractors"]), "competition-curve": [lf.competition_curve()],
    }
