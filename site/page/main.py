"""Live figures: read a field -> change the figure state -> mha (through figure.py) -> redraw.

Runs in the browser only (PyScript). The state is one dict (fragment.py's keys)
and lives in the URL fragment too, so a shared link reopens the same figure.
Every handler is synchronous: an edit redraws every head inside its input event.
No math here, and no HTML: figure.py builds trees, boot.js's mhaDraw draws them.
"""

import json

from pyscript import document, when, window
from pyodide.ffi import create_proxy

import cells_glue
import dom
import figure
import fragment
import lesson_figures as lf
import lesson_kv
import mha

STATE = fragment.default_state()
SHOWN = {"shape": None, "snapshot": (None, None), "view": None, "outputs": "prerendered"}  # on screen now
BIG_WIDTH = 16  # from a link wider than this, the outputs start folded: 2 x n x d numbers is a wall
ERRORS = {}          # element id -> the sentence on screen there
BAD_FIELDS = {}      # grid id -> {(token, slot): message} for fields whose text is not a number now
KV = {"shape": figure.model_shape(figure.DEFAULT_MODEL), "seq_len": figure.DEFAULT_SEQ_LEN}

GRIDS = {figure.GRID_ID: ("tokens", "token", "grid-error"),
         figure.CONTEXT_GRID_ID: ("context", "context token", "context-error")}


# --- drawing -----------------------------------------------------------------------

def draw(element_id, children):
    """Replace an element's children with trees: one call into boot.js."""
    window.mhaDraw(element_id, dom.to_json(children))


def say(element_id, message):
    """The sentence in an error element (role=alert); drawn only when it changes."""
    if ERRORS.get(element_id, "") != message:
        draw(element_id, [message] if message else [])
        ERRORS[element_id] = message


def element(element_id):
    return document.getElementById(element_id)


def draw_heads(view, mark=True):
    """Every head table, the outputs, the cross tables and the summary: patched in place when only numbers moved."""
    own, cross = SHOWN["snapshot"] if mark else (None, None)
    same = view.shape() == SHOWN["shape"]
    if not (same and window.mhaPatch(figure.HEADS_ID, json.dumps(lf.head_tables_patch(view.result, view.wide, own)))):
        draw(figure.HEADS_ID, figure.heads(view, own))
    draw_outputs(view, same)
    if view.cross is not None:
        patch = lf.head_tables_patch(view.cross, view.cross_wide, cross, figure.CROSS_SUFFIX)
        if not (same and window.mhaPatch(figure.CROSS_TABLES_ID, json.dumps(patch))):
            draw(figure.CROSS_TABLES_ID, figure.cross_tables(view, cross))
    elif SHOWN["shape"] is None or SHOWN["shape"][-1] is not None:
        draw(figure.CROSS_TABLES_ID, [])
    draw(figure.SUMMARY_ID, figure.summary(view, own))
    SHOWN.update(shape=view.shape(), snapshot=view.snapshot(), view=view)


def draw_outputs(view, same=False):
    """The outputs, only while their <details> is open (a closed one is drawn when it opens)."""
    if not element("outputs-details").open:
        SHOWN["outputs"] = None
        return
    if not (same and SHOWN.get("outputs") is not None
            and window.mhaPatch(figure.OUTPUTS_ID, json.dumps(lf.output_tables_patch(view.result)))):
        draw(figure.OUTPUTS_ID, figure.outputs(view))
    SHOWN["outputs"] = view


@when("toggle", "#outputs-details")
def on_outputs_toggle(event):
    if SHOWN.get("view") is not None and SHOWN.get("outputs") is not SHOWN["view"]:
        draw_outputs(SHOWN["view"])


def draw_structure(view):
    """What depends on the sizes only: pickers, slot legend, grid headers, key/value sharing, buttons."""
    draw(figure.SIZE_ID, figure.size_controls(STATE))
    draw(figure.LEGEND_ID, [lf.slot_legend(view.result)])
    draw("token-grid-head", [lf.token_grid_head(len(STATE["tokens"][0]), STATE["heads"])])
    draw(figure.KV_SHARING_ID, figure.kv_sharing(view))
    set_buttons("token", len(STATE["tokens"]))
    if STATE["context"] is not None:
        set_buttons("context-token", len(STATE["context"]))


def set_buttons(kebab, count):
    """Add/remove buttons follow the caps; a note says why 'add' stopped."""
    element(f"add-{kebab}").disabled = count >= mha.MAX_TOKENS
    element(f"remove-{kebab}").disabled = count <= 1
    note = f"{mha.MAX_TOKENS} is the most this page draws." if count >= mha.MAX_TOKENS else ""
    say(f"{kebab}-cap", note)


def draw_grid(grid_id):
    """Redraw a grid's fields from the state (after add/remove, a preset, a new width)."""
    key, label, error_id = GRIDS[grid_id]
    draw(grid_id, figure.grid(STATE[key], STATE["heads"] if key == "tokens" else None, label))
    BAD_FIELDS.pop(grid_id, None)
    say(error_id, "")


def draw_everything(view, mark=True):
    """After a preset, a reset or a shared link: every control and figure from the state."""
    draw_grid(figure.GRID_ID)
    draw(figure.OPTIONS_ID, figure.options_controls(STATE))
    say("seed-error", "")
    cross_on = STATE["context"] is not None
    draw(figure.CROSS_ID, figure.cross_switch(STATE))
    element("cross-body").hidden = not cross_on
    if cross_on:
        draw_grid(figure.CONTEXT_GRID_ID)
    draw(figure.COMPETITION_TABLE_ID, figure.competition(STATE["distractors"]))
    element("distractors").value = str(STATE["distractors"])
    say("distractors-error", "")
    draw_structure(view)
    draw_heads(view, mark)


# --- changing the state ------------------------------------------------------------

def change(error_id, redraw=draw_heads, **changes):
    """Try the state with these changes: on success keep it, redraw (the heads), update the link.

    On a ValueError from mha, say it at error_id; the figures keep the last valid state.
    Returns the new View, or None.
    """
    candidate = {**STATE, **changes}
    try:
        view = figure.compute(candidate)
    except ValueError as error:
        say(error_id, str(error))
        return None
    say(error_id, "")
    STATE.update(candidate)
    redraw(view)
    window.mhaSetFragment(ENCODE)
    return view


ENCODE = create_proxy(lambda: fragment.encode(STATE))  # called by boot.js once edits pause


def resized(rows, width):
    """Each row padded with zeros or cut to width."""
    return [(row + [0.0] * width)[:width] for row in rows]


def sized(tokens):
    """The state's changes for new tokens, maybe of a new width (context and heads fitted to it)."""
    width = len(tokens[0])
    heads, kv = mha.fit_heads(width, STATE["heads"], STATE["kv_heads"])
    context = STATE["context"]
    return {"tokens": tokens, "heads": heads, "kv_heads": kv,
            "context": None if context is None else resized(context, width)}


def replace_tokens(tokens, error_id="grid-error"):
    """New tokens for the main grid (any width): the grid is redrawn with them."""
    view = change(error_id, **sized(tokens))
    if view is not None:
        draw_grid(figure.GRID_ID)
        if STATE["context"] is not None:
            draw_grid(figure.CONTEXT_GRID_ID)
        draw_structure(view)
    return view


# --- handlers ----------------------------------------------------------------------

def on_grid_field(target):
    """One field of a grid changed: only that number is read (fast at 32 x 64 fields)."""
    grid_id = target.closest("table").parentElement.id
    key, label, error_id = GRIDS[grid_id]
    t, s = int(target.dataset.token), int(target.dataset.slot)
    bad = BAD_FIELDS.setdefault(grid_id, {})
    try:
        value = mha.parse_number(target.value, f"{label} {t} slot {s}")
    except ValueError as error:
        bad[(t, s)] = str(error)
        say(error_id, str(error))
        return
    bad.pop((t, s), None)
    rows = STATE[key]
    if rows[t][s] == value:
        say(error_id, next(iter(bad.values()), ""))
        return
    new_rows = [list(row) for row in rows]
    new_rows[t][s] = value
    if change(error_id, **{key: new_rows}) is not None and bad:
        say(error_id, next(iter(bad.values())))  # another field still holds text that is not a number


def on_width(target):
    width = int(target.value)
    replace_tokens(resized(STATE["tokens"], width))


def on_heads(target):
    width = len(STATE["tokens"][0])
    heads, kv = mha.fit_heads(width, STATE["heads"], STATE["kv_heads"], wanted=int(target.value))
    view = change("grid-error", heads=heads, kv_heads=kv)
    if view is not None:
        draw_structure(view)


def on_kv_heads(target):
    view = change("kv-sharing-error", kv_heads=int(target.value))
    if view is not None:
        draw(figure.KV_SHARING_ID, figure.kv_sharing(view))


def on_projections(target):
    change("seed-error", projections=target.value)


def on_seed(target):
    try:
        seed = mha.parse_count(target.value, "seed", 0, fragment.MAX_SEED)
    except ValueError as error:
        say("seed-error", str(error))
        return
    if seed != STATE["seed"] or ERRORS.get("seed-error"):
        change("seed-error", seed=seed)


def on_causal(target):
    change("grid-error", causal=bool(target.checked))


def on_cross(target):
    on = bool(target.checked)
    width = len(STATE["tokens"][0])
    view = change("context-error", context=resized(figure.DEFAULT_CONTEXT, width) if on else None)
    if view is None:
        return
    element("cross-body").hidden = not on
    if on:
        draw_grid(figure.CONTEXT_GRID_ID)
        set_buttons("context-token", len(STATE["context"]))


def on_distractors(target):
    try:
        count = lf.parse_distractors(target.value)
    except ValueError as error:
        say("distractors-error", str(error))
        return
    say("distractors-error", "")
    STATE["distractors"] = count
    draw(figure.COMPETITION_TABLE_ID, figure.competition(count))
    window.mhaSetFragment(ENCODE)


def on_model(target):
    if target.value == "custom":
        return  # keep the numbers in the fields: the reader edits them
    KV["shape"] = figure.model_shape(target.value)
    draw("kv-fields", [lf.kv_cache_fields(KV["shape"], KV["seq_len"])])
    say("kv-error", "")
    draw(figure.KV_BILL_ID, figure.kv_bill(KV["shape"], KV["seq_len"]))


def on_kv_field(target):
    texts = {fid: element(fid).value for fid, _, _ in lesson_kv.KV_FIELDS}
    try:
        shape, seq_len, bytes_per_value = lf.read_kv_fields(texts)
    except ValueError as error:
        say("kv-error", str(error))
        return
    say("kv-error", "")
    KV["seq_len"] = seq_len
    preset = KV["shape"]
    named = shape._replace(name=preset.name) == preset
    element("kv-model").value = preset.name if named else "custom"
    draw(figure.KV_BILL_ID, figure.kv_bill(preset if named else shape._replace(name="your own shape"),
                                           seq_len, bytes_per_value))


def on_add(grid_id, delta):
    key, _, error_id = GRIDS[grid_id]
    rows = [list(row) for row in STATE[key]]
    rows = rows + [[0.0] * len(rows[0])] if delta > 0 else rows[:-1]
    if not 1 <= len(rows) <= mha.MAX_TOKENS:
        return
    if change(error_id, **{key: rows}) is not None:
        draw_grid(grid_id)
        set_buttons("token" if key == "tokens" else "context-token", len(rows))


def preset(tokens):
    """The lesson's tokens at width 4 with 2 heads; other options stay as the reader set them."""
    change("grid-error", draw_everything, **{**sized([list(row) for row in tokens]), "heads": mha.LESSON_HEADS,
                                             "kv_heads": mha.LESSON_HEADS})


def reset_all():
    STATE.update(fragment.default_state())
    say("fragment-notice", "")
    draw_everything(figure.compute(STATE), mark=True)
    window.mhaSetFragment(ENCODE)


INPUTS = {"width": on_width, "heads": on_heads, "sharing-heads": on_heads, "kv-heads": on_kv_heads,
          "projections": on_projections, "causal": on_causal, "cross": on_cross, "seed": on_seed, "distractors": on_distractors,
          "kv-model": on_model, **{fid: on_kv_field for fid, _, _ in lesson_kv.KV_FIELDS}}
ACTIONS = {"add-token": lambda: on_add(figure.GRID_ID, 1), "remove-token": lambda: on_add(figure.GRID_ID, -1),
           "add-context-token": lambda: on_add(figure.CONTEXT_GRID_ID, 1),
           "remove-context-token": lambda: on_add(figure.CONTEXT_GRID_ID, -1),
           "preset-lesson": lambda: preset(mha.LESSON_TOKENS), "try-exercise": lambda: preset(mha.EXERCISE_TOKENS),
           "reset-all": reset_all}


@when("input", "main")
def on_input(event):
    """Every field of the figures: grids, counts, seed, calculator (the event bubbles up to <main>)."""
    target = event.target
    if target.hasAttribute("data-token") and target.closest(".token-grid"):
        on_grid_field(target)
    elif target.id in INPUTS and target.tagName == "INPUT" and target.type != "checkbox":
        INPUTS[target.id](target)


@when("change", "main")
def on_change(event):
    """Pickers and switches; a picker redrawn under the reader's focus gets the focus back."""
    target = event.target
    if target.id in INPUTS and (target.tagName == "SELECT" or target.type == "checkbox"):
        INPUTS[target.id](target)
        if not document.activeElement or document.activeElement.id != target.id:
            again = element(target.id)
            if again:
                again.focus()


@when("click", "main")
def on_click(event):
    button = event.target.closest("button[data-action]")
    if button and button.dataset.action in ACTIONS:  # closest() gives JS null (falsy) off a button
        ACTIONS[button.dataset.action]()


# --- the link, and the code cells ----------------------------------------------------

def open_link(text):
    """Apply a URL fragment's state; a malformed one is ignored with a notice."""
    if text in ("", "#"):
        say("fragment-notice", "")
        return False
    if "=" not in text and element(text.lstrip("#")):
        return False  # a plain in-page link (#section-id), not figure state
    try:
        state = fragment.decode(text)
        view = figure.compute({**STATE, **state})  # the state changes only once it can be drawn
    except ValueError as error:
        say("fragment-notice", str(error))
        return False
    say("fragment-notice", "")
    STATE.update(state)
    if len(state["tokens"][0]) > BIG_WIDTH:
        element("outputs-details").open = False
    draw_everything(view, mark=False)
    return True


def on_hash_change(event):
    open_link(str(window.location.hash))


def show_tokens(tokens):
    """A code cell's show(tokens): validate with mha, then put them in the live figure (grid, heads, link).

    tokens: a list of token vectors (lists of numbers), any width up to mha.MAX_WIDTH.
    Raises ValueError with a sentence for the cell to show; the figure then keeps its state.
    """
    if hasattr(tokens, "to_py"):
        tokens = tokens.to_py()
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(row, (list, tuple)) for row in tokens):
        raise ValueError("show() needs a list of token vectors, e.g. [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]")
    rows = mha.parse_tokens([[str(x) for x in row] for row in tokens])
    try:
        figure.compute({**STATE, **sized(rows)})
    except ValueError as error:
        raise ValueError(str(error)) from None
    replace_tokens(rows)


def figure_tokens():
    """A code cell's figure_tokens(): the live figure's tokens now, as plain lists."""
    return [list(row) for row in STATE["tokens"]]


def start():
    """Draw the shared link's state, or the edits typed into the grid while Python was loading.

    Pickers and switches changed while loading did nothing: they are redrawn from the state
    (the grid is not, so a reader typing in it keeps the focus and the text).
    """
    if not open_link(str(window.location.hash)):
        typed = json.loads(window.mhaGridValues(figure.GRID_ID))
        try:
            tokens = mha.parse_tokens(typed)
        except ValueError as error:
            say("grid-error", str(error))
        else:
            if tokens != STATE["tokens"]:
                change("grid-error", tokens=tokens)
        view = figure.compute(STATE)
        if SHOWN["view"] is None:  # the pre-rendered tables are this view: the first edit can patch and mark
            SHOWN.update(shape=view.shape(), snapshot=view.snapshot(), view=view)
        draw(figure.OPTIONS_ID, figure.options_controls(STATE))
        draw(figure.CROSS_ID, figure.cross_switch(STATE))
        draw_structure(view)
    window.addEventListener("hashchange", create_proxy(on_hash_change))


start()
cells_glue.setup(show=show_tokens, figure_tokens=figure_tokens)
window.mhaReady()
