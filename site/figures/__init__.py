"""Every live figure of the page in one table: element id -> how to build its children, and when.

FIGURES[element_id] = Figure(build, redraw, patch, mark):
- build(state, view, before) -> the element's children (trees, see page.dom); `view` is
  state.compute(state), `before` the View shown until now (None: no change markers).
- redraw: the events after which page/main.py draws it again:
    "numbers"    any number in the tokens or context changed (the head tables, the summary)
    "structure"  sizes changed: width, heads, key/value heads, a token added or removed
    "token-grid", "context-grid"  a grid's fields themselves (a preset, a new width, a shared link)
    "controls"   every picker and switch from the state (a preset, a reset, a shared link)
    "model"      the KV calculator switched model;  "kv": one of its fields changed
    "competition"  the distractor count changed
  An empty tuple: drawn at build time only (static tables, buttons main.py toggles in place).
- patch(state, view, before) -> the same numbers as build, for boot.js's mhaPatch (same shape only).
- mark: index.html has a <!--render:ID--> mark for it (False for parts inside another figure).

build.py pre-renders every marked figure from the default state; main.py draws the same
builders live. This is the one place element ids are paired with what fills them.
"""

from typing import Callable, NamedTuple

import mha
from figures import competition, heads, kv
from page import state as figure_state

CROSS_SUFFIX = " cross-attention weights"  # cross tables: 'head 0 cross-attention weights'


class Figure(NamedTuple):
    build: Callable
    redraw: tuple = ()
    patch: Callable = None
    mark: bool = True


def _snapshot(view, cross=False):
    """The weights a redraw compares with (heads.weights_snapshot), or None without a view before."""
    if view is None or (cross and view.cross is None):
        return None
    return heads.weights_snapshot(view.cross, view.cross_wide) if cross else heads.weights_snapshot(view.result, view.wide)


def _head_tables(state, view, before):
    return [heads.head_tables(view.result, view.wide, _snapshot(before))]


def _head_tables_patch(state, view, before):
    return heads.head_tables_patch(view.result, view.wide, _snapshot(before))


def _cross_tables(state, view, before):
    if view.cross is None:
        return []
    return [heads.head_tables(view.cross, view.cross_wide, _snapshot(before, True), "context token", CROSS_SUFFIX)]


def _cross_tables_patch(state, view, before):
    if view.cross is None:  # nothing drawn, nothing to patch
        return {"text": [], "class": [], "value": [], "delta": [], "marked": []}
    return heads.head_tables_patch(view.cross, view.cross_wide, _snapshot(before, True), CROSS_SUFFIX)


def _size_controls(state, view, before):
    width = len(state["tokens"][0])
    return [heads.width_picker(width), " ", heads.heads_picker(width, state["heads"])]


def _kv_sharing(state, view, before):
    """Query heads (the same choice as section 2's), key/value heads, and who shares what."""
    result = view.result
    return [heads.count_select("sharing-heads", "query heads in the figure", mha.head_choices(result.width),
                               len(result.kv_head_of)), " ",
            kv.kv_heads_picker(len(result.kv_head_of), len(set(result.kv_head_of))), kv.sharing_diagram(result.kv_head_of)]


def _context_grid(state, view, before):
    return [] if state["context"] is None else [heads.token_grid(state["context"], None, "context token")]


FIGURES = {
    # section 2: the recipe
    "fig-size": Figure(_size_controls, ("structure", "controls")),
    "fig-slot-legend": Figure(lambda s, v, b: [heads.slot_legend(v.result)], ("structure",)),
    # section 3: the live figure
    "fig-options": Figure(lambda s, v, b: heads.options_controls(s), ("controls",)),
    "token-grid": Figure(lambda s, v, b: [heads.token_grid(s["tokens"], s["heads"])], ("token-grid",)),
    "token-grid-head": Figure(lambda s, v, b: [heads.token_grid_head(len(s["tokens"][0]), s["heads"])],
                              ("structure",), mark=False),
    "fig-token-buttons": Figure(lambda s, v, b: [heads.token_buttons(len(s["tokens"]))]),
    "head-tables": Figure(_head_tables, ("numbers",), _head_tables_patch),
    "fig-outputs": Figure(lambda s, v, b: [heads.output_tables(v.result)], ("numbers",),
                          lambda s, v, b: heads.output_tables_patch(v.result)),
    # section 4: the exercise
    "fig-presets": Figure(lambda s, v, b: [heads.preset_buttons()]),
    "moved-summary": Figure(lambda s, v, b: [heads.moved_summary(v.result, v.wide, _snapshot(b))], ("numbers",)),
    # section 6: cross-attention
    "fig-cross": Figure(lambda s, v, b: heads.cross_switch(s), ("controls",)),
    "context-grid": Figure(_context_grid, ("context-grid",)),
    "context-buttons": Figure(lambda s, v, b: [heads.token_buttons(len(figure_state.DEFAULT_CONTEXT), "context token")]),
    "cross-tables": Figure(_cross_tables, ("numbers",), _cross_tables_patch),
    # section 7: sharing keys and values, the KV cache
    "fig-kv-sharing": Figure(_kv_sharing, ("structure",)),
    "fig-kv-cache": Figure(lambda s, v, b: kv.kv_calculator(s["kv"])),
    "kv-fields": Figure(lambda s, v, b: [kv.kv_cache_fields(*s["kv"])], ("model",), mark=False),
    "kv-bill": Figure(lambda s, v, b: [kv.kv_cache_readout(*s["kv"])], ("model", "kv")),
    "kv-models": Figure(lambda s, v, b: [kv.kv_cache_table(figure_state.DEFAULT_SEQ_LEN)]),
    # section 8: softmax mass is shared
    "fig-distractors": Figure(lambda s, v, b: [competition.distractor_input(s["distractors"])], ("controls",)),
    "competition-table": Figure(lambda s, v, b: [competition.competition_figure(s["distractors"])],
                                ("competition", "controls")),
    "competition-curve": Figure(lambda s, v, b: [competition.competition_curve()]),
}


def redrawn_by(event):
    """The element ids drawn again after an event, in page order."""
    return [element_id for element_id, figure in FIGURES.items() if event in figure.redraw]


def prerender():
    """Element id -> its children in the default state: what build.py writes into index.html."""
    state = figure_state.default_state()
    view = figure_state.compute(state)
    return {element_id: figure.build(state, view, None) for element_id, figure in FIGURES.items() if figure.mark}
