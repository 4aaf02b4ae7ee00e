"""The page's script, and the only module that imports the browser: event -> pure transition -> redraw.

Runs in the browser only (PyScript). Each handler reads a field, asks
page/state.py for the new state (a pure function), passes it through the
gate (state.compute) and redraws the figures that figures.FIGURES names for
that event. No math here, and no HTML: mha computes, figures/ builds trees,
boot.js's mhaDraw draws them. The state also lives in the URL fragment, so a
shared link reopens the same figure.
"""

import json
from array import array
from types import SimpleNamespace

from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

import mha
from app import cells as cells_glue
from app import text as text_glue
from app import training as training_glue
from figures import FIGURES, exercise, redrawn_by
from figures.kv import KV_FIELDS, read_kv_fields
from page import dom, fragment
from page import state as figure_state

STATE = figure_state.default_state()
SHOWN = {"view": None, "before": None, "outputs": None}  # the View on screen now, the one its moved marks compare
                                                        # with, and the one the outputs show
BIG_WIDTH = 16  # wider than this (by a link or the picker), the outputs fold: 2 x n x d numbers is a wall, and
                # redrawing them on every keystroke (6,144 cells at 32 x 64) is most of the keystroke's time
ERRORS = {}          # element id -> the sentence on screen there
BAD_FIELDS = {}      # state key -> {(token, slot): message} for fields whose text is not a number now
ERROR_IDS = {"tokens": "grid-error", "context": "context-error", "blend": "blend-error"}
KEBAB = {"tokens": "token", "context": "context-token"}
GRID_EVENTS = {"tokens": "token-grid", "context": "context-grid"}  # figures.FIGURES' ids and redraw events
GRID_KEYS = {**{event: key for key, event in GRID_EVENTS.items()}, "fig-blend-tokens": "blend"}  # element id -> key
GRIDS = ".token-grid, .blend-grid"  # the tables whose fields carry data-token and data-slot (section 1's, 3's, 7's)
FIELD_NAMES = {**figure_state.GRIDS, "blend": "token"}  # a grid's fields in mha's sentences: 'token 2 slot 1'


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


def draw_figure(element_id, view, before=None, patch=False):
    """Build one registered figure and draw it: patched in place when asked and the shapes allow."""
    figure = FIGURES[element_id]
    if patch and figure.patch is not None:
        cells = figure.patch(STATE, view, before)
        # Texts as newline-joined strings (~30x cheaper than JSON for 2304 cells) and the numbers
        # as a Float64Array: boot.js writes their repr() itself, ~2 ms less Python per keystroke.
        texts = [cells[name] for name in ("text", "class", "delta")]
        if window.mhaPatch(element_id, *texts, to_js(array("d", cells["value"])), json.dumps(cells["marked"])):
            return
    draw(element_id, figure.build(STATE, view, before))


def redraw(event, view, before=None):
    """Every figure FIGURES names for this event ('numbers' patches when the shape stayed)."""
    same = before is not None and before.shape() == view.shape()
    for element_id in redrawn_by(event):
        if element_id == "fig-outputs":
            draw_outputs(view, same)
        else:
            draw_figure(element_id, view, before, patch=same)
    if event == "numbers":
        SHOWN.update(view=view, before=before)


def draw_outputs(view, same=False):
    """The outputs, only while their <details> is open (a closed one is drawn when it opens)."""
    if not element("outputs-details").open:
        SHOWN["outputs"] = None
        return
    draw_figure("fig-outputs", view, patch=same and SHOWN["outputs"] is not None)
    SHOWN["outputs"] = view


def on_outputs_toggle(event):
    if SHOWN["view"] is not None and SHOWN["outputs"] is not SHOWN["view"]:
        draw_outputs(SHOWN["view"])


def set_buttons(key):
    """A grid's add/remove buttons and cap note, toggled in place (the focus stays on them)."""
    add_off, remove_off, note = figure_state.button_rules(len(STATE[key]))
    element(f"add-{KEBAB[key]}").disabled = add_off
    element(f"remove-{KEBAB[key]}").disabled = remove_off
    say(f"{KEBAB[key]}-cap", note)


def draw_structure(view):
    """What depends on the sizes: pickers, slot legend, grid headers, sharing, buttons."""
    redraw("structure", view)
    set_buttons("tokens")
    if STATE["context"] is not None:
        set_buttons("context")


def draw_grids(view, keys=("tokens", "context")):
    """Grids' fields from the state ('tokens', 'context'); texts that were not numbers go with them."""
    for key in keys:
        redraw(GRID_EVENTS[key], view)
        BAD_FIELDS.pop(key, None)
        say(ERROR_IDS[key], "")
    element("cross-body").hidden = STATE["context"] is None


def draw_everything(view, mark=True):
    """After a preset, a reset or a shared link: every control and figure from the state."""
    draw_grids(view)
    redraw("controls", view)
    for error_id in ("seed-error", "distractors-error", "cost-seq-len-error"):
        say(error_id, "")
    draw_structure(view)
    redraw("numbers", view, SHOWN["view"] if mark else None)


# --- changing the state ------------------------------------------------------------

def commit(error_id, new_state):
    """Pass new_state through the gate: keep it and return its View, or say mha's sentence and return None.

    The figures keep the last valid state on a ValueError.
    """
    try:
        view = figure_state.compute(new_state, SHOWN["view"])  # rows the View on screen projected are reused
    except ValueError as error:
        say(error_id, str(error))
        return None
    say(error_id, "")
    say("exercise-status", "")  # it tells what a section 4 button set: stale after any other change
    STATE.clear()
    STATE.update(new_state)
    window.mhaSetFragment(ENCODE)
    return view


ENCODE = create_proxy(lambda: fragment.encode(STATE))  # called by boot.js once edits pause


def edit(error_id, transition, *args, redraws=("numbers",)):
    """Run a pure transition on the state and commit it; redraw the named events. Returns the View or None."""
    try:
        new_state = transition(STATE, *args)
    except ValueError as error:
        say(error_id, str(error))
        return None
    before = SHOWN["view"]
    view = commit(error_id, new_state)
    if view is not None:
        draw_grids(view, [key for key in GRID_EVENTS if GRID_EVENTS[key] in redraws])
        if "structure" in redraws:
            draw_structure(view)
        redraw("numbers", view, before)
    return view


# --- handlers: read a field, transition, redraw --------------------------------------

def edit_blend(error_id, transition, *args, redraws="blend"):
    """edit() for section 1's three tokens: their own gate (state.compute_blend, once), only their figures."""
    try:
        new_state = transition(STATE, *args)
        blend = figure_state.compute_blend(new_state["blend"])
    except ValueError as error:
        say(error_id, str(error))
        return None
    STATE.update(new_state)
    SHOWN["view"] = SHOWN["view"]._replace(blend=blend)  # the View on screen now shows these tokens
    redraw(redraws, SHOWN["view"])
    return blend


def on_grid_field(target):
    """One field of a grid changed (section 3's tokens, section 7's context, section 1's three tokens): only that
    number is read (fast at 32 x 64 fields), then kept through the grid's gate, or mha's sentence is said."""
    key = GRID_KEYS[target.closest("table").parentElement.id]
    t, s = int(target.dataset.token), int(target.dataset.slot)
    bad = BAD_FIELDS.setdefault(key, {})
    try:
        value = mha.parse_number(target.value, f"{FIELD_NAMES[key]} {t} slot {s}")
    except ValueError as error:
        bad[(t, s)] = str(error)
        say(ERROR_IDS[key], str(error))
        return str(error)
    bad.pop((t, s), None)
    keep = edit_blend if key == "blend" else edit
    if STATE[key][t][s] == value or keep(ERROR_IDS[key], figure_state.with_number, key, t, s, value):
        say(ERROR_IDS[key], next(iter(bad.values()), ""))  # another field may still hold text that is not a number
        return ""
    return ERRORS[ERROR_IDS[key]]  # the gate refused the number (an overflow)


def on_blend_reset():
    """Section 1's three tokens back to mha.BLEND_TOKENS: its fields, picture and numbers drawn again."""
    BAD_FIELDS.pop("blend", None)
    say("blend-error", "")
    edit_blend("blend-error", figure_state.with_blend_reset, redraws="blend-grid")


def on_width(target):
    if int(target.value) > BIG_WIDTH >= len(STATE["tokens"][0]):
        element("outputs-details").open = False  # before the redraw: a reader opens them again at will
    edit("grid-error", figure_state.with_width, int(target.value), redraws=(*GRID_EVENTS.values(), "structure"))


def on_heads(target):
    edit("grid-error", figure_state.with_heads, int(target.value), redraws=("structure",))


def on_kv_heads(target):
    view = edit("kv-sharing-error", figure_state.with_kv_heads, int(target.value), redraws=("structure",))
    if view is not None:
        draw_figure("fig-options", view)  # sharing switches on random projections: the picker says so


def on_projections(target):
    # The grid's header bands, the slot legend and the captions name slices only under identity slices
    # (which also end any sharing, so section 6 redraws): the structure is drawn again, not the grid's fields.
    edit("seed-error", figure_state.with_projections, target.value, redraws=("structure",))


def on_setting(target, field, error_id, redraws):
    """A field that holds one linked setting (seed, distractors, section 2's sequence length): read by its
    parser in state.LINKED, a sentence on bad text, else through the gate and the named events redrawn."""
    try:
        value = LINKED_PARSERS[field](target.value)
    except ValueError as error:
        say(error_id, str(error))
        return str(error)
    if value == STATE[field] and not ERRORS.get(error_id):
        return ""
    before = SHOWN["view"]
    view = commit(error_id, figure_state.changed(STATE, **{field: value}))
    if view is None:
        return ERRORS[error_id]
    for event in redraws:
        redraw(event, view, before)
    return ""


LINKED_PARSERS = {linked.field: linked.parse for linked in figure_state.LINKED}


def on_causal(target):
    edit("grid-error", lambda s: figure_state.changed(s, causal=bool(target.checked)))


def on_digits(target):
    """2 or 4 decimals in the live figure's tables: the same numbers and the same moved marks, printed again."""
    STATE.update(figure_state.changed(STATE, digits=4 if target.checked else 2))
    redraw("numbers", SHOWN["view"], SHOWN["before"])


def on_cross(target):
    if edit("context-error", figure_state.with_cross, bool(target.checked), redraws=("context-grid",)):
        if STATE["context"] is not None:
            set_buttons("context")


# The KV calculator's numbers are not the figure's: read_kv_fields (figures/kv.py) checks them with mha,
# and the gate (state.compute) has nothing to add, so they go straight into STATE and its figures.
def on_model(target):
    if target.value == "custom":  # the numbers stay in the fields for the reader to edit; the bill drops the name
        STATE.update(figure_state.with_own_shape(STATE))
        redraw("kv", SHOWN["view"])
        return
    STATE.update(figure_state.with_model(STATE, target.value))
    say("kv-error", "")
    redraw("model", SHOWN["view"])


def on_kv_field(target):
    try:
        kv = read_kv_fields({fid: element(fid).value for fid, _, _ in KV_FIELDS})
    except ValueError as error:
        say("kv-error", str(error))
        return str(error)
    say("kv-error", "")
    for fid, _, _ in KV_FIELDS:  # all read well together: none is refused now
        mark(element(fid), "")
    STATE.update(figure_state.with_kv_fields(STATE, *kv))
    named = STATE["kv"].shape.name
    element("kv-model").value = named if named in figure_state.MODEL_NAMES else "custom"
    redraw("kv", SHOWN["view"])


def on_add(key, added):
    transition = figure_state.with_token_added if added else figure_state.with_token_removed
    if edit(ERROR_IDS[key], transition, key, redraws=(GRID_EVENTS[key],)) is not None:
        set_buttons(key)


def on_preset(action):
    """Section 4's buttons. An exercise draws the lesson's tokens, then its edit, so the marks show
    what the edit moved; the way back marks what it moved back. Then the page says what was set."""
    if action in exercise.EXERCISES:
        steps = figure_state.with_exercise(STATE, exercise.EXERCISES[action])
    else:
        steps = [figure_state.with_preset(STATE, mha.LESSON_TOKENS)]
    for i, step in enumerate(steps):
        view = commit("grid-error", step)
        if view is None:
            return
        draw_everything(view, mark=i == len(steps) - 1)
    say("exercise-status", exercise.status(action, STATE))


def on_lesson_shape():
    """Section 3's way back to width 4 and 2 plain heads; focus goes to the grid, since the button is gone."""
    if edit("grid-error", figure_state.with_lesson_shape, redraws=(*GRID_EVENTS.values(), "structure")) is not None:
        document.querySelector("#token-grid input").focus()


def on_reset():
    """Sections 2-9's figures back to the worked example; the KV calculator and section 1 (its own reset) keep
    their numbers."""
    kept = {key: STATE[key] for key in ("kv", "blend", "digits")}
    STATE.update({**figure_state.default_state(), **kept})
    for notice in ("link-notice", "fragment-notice", "kv-sharing-error", "context-error"):
        say(notice, "")
    draw_everything(figure_state.compute(STATE, SHOWN["view"]))
    say("exercise-status", exercise.status("reset-all", STATE))
    window.mhaSetFragment(ENCODE)


INPUTS = {"width": on_width, "heads": on_heads, "sharing-heads": on_heads, "kv-heads": on_kv_heads,
          "projections": on_projections, "causal": on_causal, "cross": on_cross, "digits": on_digits,
          "seed": lambda target: on_setting(target, "seed", "seed-error", ("numbers",)),
          "distractors": lambda target: on_setting(target, "distractors", "distractors-error", ("competition",)),
          "cost-seq-len": lambda target: on_setting(target, "cost_seq_len", "cost-seq-len-error", ("cost",)),
          "kv-model": on_model, **{fid: on_kv_field for fid, _, _ in KV_FIELDS}}
ACTIONS = {"add-token": lambda: on_add("tokens", True), "remove-token": lambda: on_add("tokens", False),
           "add-context-token": lambda: on_add("context", True),
           "remove-context-token": lambda: on_add("context", False),
           **{bid: (lambda bid=bid: on_preset(bid)) for bid in ("preset-lesson", *exercise.EXERCISES)},
           "reset-all": on_reset, "reset-blend": on_blend_reset, "lesson-shape": on_lesson_shape}


def on_input(event):
    """Every field of the figures: grids, counts, seed, calculator, section 1's tokens (events bubble up to <main>).

    Each field's handler returns the sentence that refused its text ('' when it was taken): marked here.
    """
    target = event.target
    if target.hasAttribute("data-token") and target.closest(GRIDS):
        mark(target, on_grid_field(target))
    elif target.id in INPUTS and target.tagName == "INPUT" and target.type != "checkbox":
        mark(target, INPUTS[target.id](target))


def mark(field, refused):
    """The one place a field is marked: aria-invalid="true" (and style.css's border) while its text is refused."""
    if refused:
        field.setAttribute("aria-invalid", "true")
    elif refused is not None and field.hasAttribute("aria-invalid"):
        field.removeAttribute("aria-invalid")


def on_change(event):
    """Pickers and switches; a picker redrawn under the reader's focus gets the focus back."""
    target = event.target
    if target.id in INPUTS and (target.tagName == "SELECT" or target.type == "checkbox"):
        INPUTS[target.id](target)
        if not document.activeElement or document.activeElement.id != target.id:
            again = element(target.id)
            if again:
                again.focus()


def on_click(event):
    button = event.target.closest("button[data-action]")
    if button and button.dataset.action in ACTIONS:  # closest() gives JS null (falsy) off a button
        ACTIONS[button.dataset.action]()


# --- the link, and the code cells ----------------------------------------------------

# Where a refused key of a link is said beside its control (and, for all of them, #link-notice on the first screen).
LINK_NOTICES = {"t": "fragment-notice", "h": "fragment-notice", "c": "fragment-notice", "p": "fragment-notice",
                "s": "seed-error", "kv": "kv-sharing-error", "x": "context-error", "d": "distractors-error",
                "len": "cost-seq-len-error"}


def open_link(text):
    """Apply a URL fragment's state, every key that is valid on its own; each refused key is named at the top
    of the page and beside its control. True if anything was applied."""
    if "=" not in text and text not in ("", "#") and element(text.lstrip("#")):
        return False  # a plain in-page link (#section-id), not figure state
    for notice in ("link-notice", *set(LINK_NOTICES.values())):
        say(notice, "")
    if text in ("", "#"):
        return False
    fields, refused = fragment.read(text)  # ends in the gate, state.compute
    if fields is not None:
        view = commit("fragment-notice", figure_state.with_link(STATE, fields))
        if len(STATE["tokens"][0]) > BIG_WIDTH:
            element("outputs-details").open = False
        draw_everything(view, mark=False)
    say_refused(refused, kept=fields is not None)
    return fields is not None


def say_refused(refused, kept):
    """The link's refused keys: one sentence at the top of the page, and each beside its own control."""
    if not refused:
        return
    named = "; ".join(f"{name}: {why}" for name, why in refused)
    say("link-notice", (f"This link opened without {', '.join(name for name, _ in refused)} "
                        f"(the page's own value is used there). {named}." if kept else fragment.PREFIX + named))
    beside = {}
    for name, why in refused:
        key = name.partition("=")[0]
        notice = LINK_NOTICES.get(key, "fragment-notice")
        beside.setdefault(notice, []).append(f"The link's {name} was not used: {why}.")
    for notice, sentences in beside.items():
        say(notice, " ".join(sentences))


def show_tokens(tokens):
    """A code cell's show(tokens), already through the gate in the cells' worker: into the live figure.

    The gate runs again here (the reader may have changed the figure while the cell ran);
    a refusal raises ValueError with the sentence, and the figure keeps its state.
    """
    new_state = figure_state.with_shown_tokens(STATE, tokens)
    figure_state.compute(new_state)
    edit("grid-error", lambda s: new_state, redraws=(*GRID_EVENTS.values(), "structure"))


def figure_settings():
    """The figure's settings as JSON text, sent with each Run (a cell's figure_tokens() reads them)."""
    return json.dumps({key: STATE[key] for key in figure_state.FIGURE_KEYS})


def changed_while_loading():
    """[(id, is a checkbox, value)] of the controls changed before Python was ready (boot.js kept their ids, in
    order), read before anything is drawn: a shared link, or a handler, draws controls anew."""
    controls = [(cid, element(cid)) for cid in json.loads(window.mhaChangedWhileLoading())]
    return [(cid, control.type == "checkbox", control.checked if control.type == "checkbox" else control.value)
            for cid, control in controls if control and answering(control)]


def answering(control):
    """What answers a control: on_grid_field for a grid's field (section 1's, outside .token-grid), else INPUTS."""
    if control.hasAttribute("data-token") and control.closest(GRIDS):
        return on_grid_field
    return INPUTS.get(control.id)


def apply_changed(kept):
    """Each control of changed_while_loading() through its own handler, as if it changed now."""
    for control_id, checkbox, value in kept:
        control = element(control_id)
        if checkbox:
            control.checked = value
        else:
            control.value = value
        answering(control)(control)


def start():
    """Draw the shared link's state, or the edits typed into the grid while Python was loading; then the
    controls changed while loading, so the reader's choice is kept (and wins over a link's)."""
    kept = changed_while_loading()
    if not open_link(str(window.location.hash)):
        SHOWN["view"] = figure_state.compute(STATE)  # the pre-rendered tables: the first edit can patch and mark
        SHOWN["outputs"] = SHOWN["view"]
        try:
            typed = mha.parse_tokens(json.loads(window.mhaGridValues("token-grid")))
        except ValueError as error:
            say("grid-error", str(error))
        else:
            if typed != STATE["tokens"]:
                edit("grid-error", lambda s: figure_state.changed(s, tokens=typed))
    apply_changed(kept)
    window.addEventListener("hashchange", create_proxy(lambda event: open_link(str(window.location.hash))))


def listen():
    """The page's events: the figures' fields, pickers and buttons bubble up to <main>."""
    main = document.querySelector("main")
    for kind, handler in (("input", on_input), ("change", on_change), ("click", on_click)):
        main.addEventListener(kind, create_proxy(handler))
    element("outputs-details").addEventListener("toggle", create_proxy(on_outputs_toggle))  # does not bubble


def begin(event=None):
    """Once the page is parsed: wake the figures, then the cells and the trained model's section."""
    listen()
    start()
    browser = SimpleNamespace(document=document, window=window, create_proxy=create_proxy, to_js=to_js)
    cells_glue.setup(browser, show=show_tokens, figure=figure_settings)
    training_glue.setup(browser)
    text_glue.setup(browser)
    window.mhaReady()


# Pyodide starts while the page is parsed (interpreter.mjs): on a slow link Python may be ready first.
if document.readyState == "loading":
    document.addEventListener("DOMContentLoaded", create_proxy(begin))  # fires once
else:
    begin()
