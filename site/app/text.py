"""The text model's section on the page: the seed, the field, the switches, the chosen row, the experiment.

Browser-only (through the objects app/main.py hands to setup()); the state and its transitions are
figures/text.py's, the numbers mha.text's. A character typed at the end extends the last Reading
(mha.text.extend: the KV cache, one new row per head) and redraws at once, sending the figures' edits (redraw());
its experiment runs only if its prompts moved (fig.experiment_inputs). Anything else (a paste, an
edit in the middle, a switch, another seed) reads the whole text again in steps (mha.text_lesson.read_steps),
giving the browser its turn whenever a step has taken BUDGET seconds, so the page never waits long, and saying
how far it has read; the experiment then runs the same way. A newer edit cancels the run under way. The models
are fetched (interpreter.mjs's mhaLater: they are not in the page's wheel) and loaded when the section comes near
(boot.js's mhaWhenNear), as section 8's run is.
"""

import asyncio
import time
from types import SimpleNamespace

import mha.text
import mha.text_lesson as lesson
from figures import text as fig
from page import dom

browser = SimpleNamespace(document=None, window=None, create_proxy=None, to_js=None)

BUDGET = 0.02  # seconds of reading between turns given back to the browser
STATE = fig.default_state()
# The Reading drawn, its state, its maps' runs and its guesses' cells (fig.map_runs, fig.read_cells: kept, so a typed
# character computes only its own), the key of the chosen row's readable cell (None: the diagonal), the run under way,
# the trees last drawn in each figure (redraw()), what was last set on the section's elements and said in its lines
# (changed(), say()) and what the experiments on screen were made of (fig.experiment_inputs).
_now = {"reading": None, "state": None, "runs": None, "cells": None, "key": None, "job": None, "generation": 0,
        "drawn": {}, "set": {}, "experimented": None}


def element(element_id):
    return browser.document.getElementById(element_id)


def draw(element_id, children):
    browser.window.mhaDraw(element_id, dom.to_json(children))


def redraw(element_id, children):
    """draw(), sent as the edits from the trees last drawn there (dom.edits): a typed character changes one row of
    each map and one cell of the guesses, and the rest is neither sent nor compared again in the page."""
    before = _now["drawn"].get(element_id)
    if before is None:
        draw(element_id, children)
    else:
        browser.window.mhaUpdate(element_id, dom.edits_json(before, children))
    _now["drawn"][element_id] = children


def changed(name, value):
    """Whether value differs from the one last set as name (noting it): a write to the page that only this module
    makes is skipped when it would write the same again (most of a typed key's, which clear what is already clear)."""
    if name in _now["set"] and _now["set"][name] == value:
        return False
    _now["set"][name] = value
    return True


def say(element_id, sentence):
    """One sentence (or none) in a line of the section: drawn only if it is not the one already there (a typed key
    changes the room line, and seldom the error or the status)."""
    if changed(("said", element_id), sentence):
        draw(element_id, [sentence] if sentence else [])


def draw_reading(parts=("reads", "maps")):
    """The guesses and (or) the maps from the Reading on screen, and the slider over its rows."""
    reading = _now["reading"]
    if "reads" in parts:
        _now["cells"] = fig.read_cells(reading, _now["cells"])
        redraw("fig-text-reads", fig.reads(reading, _now["cells"]))
    if "maps" not in parts:
        return
    redraw("fig-text-maps", fig.maps(reading, STATE, _now["key"], _now["runs"]))
    readout(fig.HINT)  # the readout as drawn, though boot.js or a key wrote a cell's weight there since
    slider = element("text-position")
    slider.max = len(reading.text) - 1
    slider.value = fig.chosen(STATE)
    slider.setAttribute("aria-valuetext", f"row {fig.chosen(STATE)}: {fig.shown(reading.text[fig.chosen(STATE)])}")


def busy(on):
    """The experiment's box dimmed (and aria-busy) from the edit until its new prompts and p values are drawn."""
    if changed("busy", on):
        element("fig-text-near").setAttribute("aria-busy", "true" if on else "false")


def mark_section(status):
    """<body data-text>: "busy" from an edit until its experiment is drawn, then "ready" (what tests wait for)."""
    if changed("status", status):
        browser.document.body.dataset.text = status


# --- reading in steps -------------------------------------------------------------------------------

async def in_steps(steps, generation, progress=None):
    """Run a generator of steps, yielding to the browser every BUDGET seconds (first calling progress(steps done),
    if given); None if a newer run began."""
    start, done = time.perf_counter(), 0
    try:
        while True:
            next(steps)
            done += 1
            if time.perf_counter() - start > BUDGET:
                if progress:
                    progress(done)
                await asyncio.sleep(0)
                if generation != _now["generation"]:
                    return None
                start = time.perf_counter()
    except StopIteration as done:
        return done.value


def begin_run():
    _now["generation"] += 1
    if _now["job"] is not None and not _now["job"].done():
        _now["job"].cancel()
    return _now["generation"]


async def recompute(generation, whole, plans=None):
    """Read the whole text again (whole=True), then the experiments (plans: fig.experiments of the state, if made);
    each drawn when it is complete."""
    state = dict(STATE)
    if whole:
        size = len(state["text"])
        say("text-status", f"Reading your text with seed {state['seed']}'s model\u2026")
        reading = await in_steps(lesson.read_steps(fig.model(state["seed"]), state["text"], sorted(state["off"])),
                                 generation, lambda done: say("text-status", f"Reading your text with seed "
                                                                             f"{state['seed']}'s model: {done} of {size} "
                                                                             f"characters\u2026"))
        if reading is None:
            return
        await asyncio.sleep(0)  # the drawing in a task of its own, not after a step's BUDGET
        if generation != _now["generation"]:
            return
        _now.update(reading=reading, state=state, runs=None, cells=None)
        draw_reading(("reads",))
        await asyncio.sleep(0)  # the maps in a task of their own too: each drawing is one short task
        if generation != _now["generation"]:
            return
        _now["runs"] = fig.map_runs(reading)
        draw_reading(("maps",))
    await run_experiments(state, generation, plans or fig.experiments(state))


async def run_experiments(state, generation, plans):
    say("text-status", "Running the experiment on your text\u2026")
    for element_id, plan in plans.items():
        if isinstance(plan, str):
            draw(element_id, fig.refused(plan))
            continue
        trials = []
        for prompt, ends in plan.runs:
            trial = await in_steps(lesson.trial_steps(fig.model(state["seed"]), prompt, ends, sorted(state["off"])),
                                   generation)
            if trial is None:
                return
            trials.append(trial)
        await asyncio.sleep(0)
        if generation != _now["generation"]:
            return
        draw(element_id, plan.story(trials))
    _now["experimented"] = fig.experiment_inputs(state, plans)
    settle()


def settle():
    """The experiments on screen are the text's: undimmed, the status as the field leaves it, <body data-text=ready>."""
    busy(False)
    say("text-status", stale_note())
    mark_section("ready")


def start(whole, plans=None):
    mark_section("busy")
    busy(True)  # at the edit, not after the reading: the last text's p values are not this one's
    generation = begin_run()
    _now["job"] = asyncio.ensure_future(recompute(generation, whole, plans))


# --- handlers ----------------------------------------------------------------------------------------

def mark_field(sentence):
    """The field's error: its sentence beside it, aria-invalid and the red border; '' clears them."""
    if changed("invalid", bool(sentence)):
        field = element("text-field")
        if sentence:
            field.setAttribute("aria-invalid", "true")
        else:
            field.removeAttribute("aria-invalid")
    say("text-error", sentence)


def stale_note():
    """While the field is refused: what the dimmed figures still show ('' otherwise)."""
    if not _now["set"].get("stale"):
        return ""
    return f"Dimmed below: the last text it could read, {fig.shown_text(STATE['text'])}."


def mark_stale(on):
    if changed("stale", on):
        element("text").classList.toggle("text-stale", on)
    say("text-status", stale_note())


def offer_tail(typed):
    """The button that reads a long paste's last context characters, shown only for a paste over the context."""
    offer = fig.tail_offer(typed)
    if changed("tail", offer):
        button = element("text-tail")
        button.textContent = offer
        button.hidden = not offer


def on_tail():
    field = element("text-field")
    field.value = field.value[-fig.model().context:]
    on_text(field)
    field.focus()


def on_text(target):
    offer_tail(target.value)
    try:
        new = fig.with_text(STATE, target.value)
    except ValueError as error:
        mark_field(str(error))
        say("text-room", fig.room(target.value, readable=False))
        mark_stale(True)
        return
    mark_field("")
    mark_stale(False)
    say("text-room", fig.room(new["text"]))
    if new == STATE and _now["state"] == STATE:
        return
    more = fig.appended(new, _now["state"]) if _now["state"] is not None else None
    STATE.update(new)
    if more is not None and len(more) == 1:  # typed at the end: the KV cache, one new row per head
        reading = mha.text.extend(fig.model(STATE["seed"]), _now["reading"], more, sorted(STATE["off"]))
        _now.update(reading=reading, state=dict(STATE), runs=fig.map_runs(reading, _now["runs"]), key=None)
        draw_reading()
        plans = fig.experiments(STATE)
        if fig.experiment_inputs(STATE, plans) == _now["experimented"]:  # typed after the id: the same experiments
            begin_run()  # a run under way (an edit before this one's) would draw another text's
            settle()
        else:
            start(whole=False, plans=plans)
    else:
        start(whole=True)


def on_switch(target):
    layer, head = (int(x) for x in target.getAttribute("data-text-head").split("."))
    STATE.update(fig.with_switch(STATE, (layer, head), bool(target.checked)))
    target.closest("label").classList.toggle("off", bool(target.checked))
    start(whole=True)


def on_seed(target):
    STATE.update(fig.with_seed(STATE, int(target.value)))
    draw("fig-text-card", fig.card(STATE["seed"]))
    start(whole=True)


def on_row(row, key=None):
    """Outline row and read its cell at key (None: the diagonal's)."""
    if _now["reading"] is None or not 0 <= row < len(_now["reading"].text):
        return
    STATE.update(fig.with_chosen(STATE, row))
    _now["state"] = {**_now["state"], "chosen": STATE["chosen"]}
    _now["key"] = key
    draw_reading()


def on_input(event):
    target = event.target
    if target.id == "text-field":
        on_text(target)
    elif target.id == "text-position":
        on_row(int(target.value))


def on_change(event):
    if event.target.matches("input[data-text-head]"):
        on_switch(event.target)
    elif event.target.matches("input[data-text-seed]"):
        on_seed(event.target)


def under(event, picture):
    """(row, key) of the drawn cell under the pointer on a map, or None; the map drawn is the last Reading's."""
    box = picture.getBoundingClientRect()
    return fig.cell_at(event.clientX - box.left, event.clientY - box.top, len(_now["reading"].text))


def on_click(event):
    """A click on a map picks the row under it, and its cell there; the tail button reads a paste's end."""
    if event.target.id == "text-tail":
        on_tail()
        return
    picture = event.target.closest("svg.text-map")
    if picture and _now["reading"] is not None:
        row = fig.row_at(event.clientY - picture.getBoundingClientRect().top, len(_now["reading"].text))
        if row is not None:
            cell = under(event, picture)
            on_row(row, cell[1] if cell else None)


def readout(sentence):
    out = browser.document.querySelector("#fig-text-maps .train-readout")
    if out.textContent != sentence:
        out.textContent = sentence


def on_pointermove(event):
    """Pointing at a cell of a map's outlined row names its weight in the readout."""
    picture = event.target.closest("svg.text-map")
    if not picture or _now["reading"] is None:
        return
    cell = under(event, picture)
    if cell and cell[0] == fig.chosen(STATE):
        pictures = list(browser.document.querySelectorAll("svg.text-map"))
        readout(fig.readout(_now["reading"], STATE, fig.names()[pictures.index(picture)], *cell))


STEPS = {"ArrowUp": (-1, 0), "ArrowDown": (1, 0), "ArrowLeft": (0, -1), "ArrowRight": (0, 1)}


def on_keydown(event):
    """The arrow keys on a map's readable cell move it: up and down to another row (the slider's too), left and
    right along the row; the same cell of every map follows, and the focus stays on this map's."""
    cell = event.target.closest("svg.text-map rect[data-q]")
    step = STEPS.get(event.key)
    if not cell or step is None or event.altKey or event.ctrlKey or event.metaKey or event.shiftKey:
        return
    row, key = int(cell.getAttribute("data-q")) + step[0], int(cell.getAttribute("data-k")) + step[1]
    if _now["reading"] is None or not 0 <= row < len(_now["reading"].text) or (step[1] and not 0 <= key < row + 1):
        return
    event.preventDefault()
    index = list(browser.document.querySelectorAll("svg.text-map")).index(cell.ownerSVGElement)
    on_row(row, min(key, row))
    again = browser.document.querySelectorAll("svg.text-map")[index].querySelector("rect[data-q]")
    again.focus()
    readout(again.querySelector("title").textContent)


# --- start -------------------------------------------------------------------------------------------

def wake():
    asyncio.ensure_future(woken())


async def woken():
    """The models fetched (pyscript.json's "later" archive: not on the way to the page's ready), the reader's text
    (typed before this, perhaps) read, the controls listening."""
    say("text-status", "Loading the models\u2026")
    try:
        await browser.window.mhaLater("text-models")
    except Exception as error:  # the fetch's JavaScript error: named, and the controls stay off
        say("text-status", f"The models could not be loaded ({error}); reload the page to try again.")
        return
    section = element("text")
    for kind, handler in (("input", on_input), ("change", on_change), ("click", on_click), ("keydown", on_keydown),
                          ("pointermove", on_pointermove)):
        section.addEventListener(kind, browser.create_proxy(handler))
    for control in section.querySelectorAll("input[data-text-head], input[data-text-seed], #text-position"):
        control.disabled = False
    for box in section.querySelectorAll("input[data-text-head]"):
        if box.checked:
            layer, head = (int(x) for x in box.getAttribute("data-text-head").split("."))
            STATE.update(fig.with_switch(STATE, (layer, head), True))
    for button in section.querySelectorAll("input[data-text-seed]"):
        if button.checked and int(button.value) != STATE["seed"]:  # picked while the model loaded
            STATE.update(fig.with_seed(STATE, int(button.value)))
            draw("fig-text-card", fig.card(STATE["seed"]))
    on_text(element("text-field"))  # nothing read yet: the whole text (perhaps typed while loading), in steps


def setup(page_browser):
    """Called once by app/main.py: wake() when the section comes within a screen's height."""
    vars(browser).update(vars(page_browser))
    browser.window.mhaWhenNear(browser.to_js([element("text")]), browser.create_proxy(wake))
