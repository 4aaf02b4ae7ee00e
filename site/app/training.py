"""The trained model's section on the page: scrub, probe, switch heads off, train in a worker.

Browser-only (PyScript, through the objects app/main.py hands to setup()); every state change is a
pure transition in training/state.py and every tree comes from figures/training.py, so this module
only reads fields, calls those and draws. boot.js switches the checkpoint frames when the slider
moves, with or without Python; once load() has run, the probe and the scores follow it too.

load() fetches and parses training.json, a few hundred milliseconds of the page's one thread, so
setup() does not start it: it waits until the section comes within a viewport height of the screen,
or until the reader first points at, presses or focuses something in it (boot.js's mhaWhenNear).
Until then the buttons stay disabled; while it runs the status line says so.

Training runs in a Python of its own (worker.mjs?module=training.worker): each Train starts a fresh
one, and Stop and Reset terminate it.
"""

import asyncio
import json

from types import SimpleNamespace

from figures import training as fig
from page import dom
from training import state as train_state

# The browser, handed over by app/main.py (the one module that imports pyscript and js) in setup().
browser = SimpleNamespace(document=None, window=None, create_proxy=None, to_js=None)

WORKER_MODULE = "training.worker"
DATA_URL = "./training.json"  # figures.training.files(), written by build.py
LOADING = "Loading the build-time run\u2026"

STATE = train_state.default_state()
_data = {"run": None}    # the build-time run, once training.json has arrived
_worker = {"js": None, "ready": False, "pending": None, "running": False, "step": 0, "seed": 0, "proxies": None}
_shown = {}   # element id -> what it shows now (a sentence, or the switches' trees), to skip a redraw


# --- drawing ---------------------------------------------------------------------------

def element(element_id):
    return browser.document.getElementById(element_id)


def js_object(fields):
    """A dict as a plain JS object (what Worker options and postMessage expect)."""
    return browser.to_js(fields, dict_converter=browser.window.Object.fromEntries)


def draw(element_id, children):
    browser.window.mhaDraw(element_id, dom.to_json(children))


def say(element_id, sentence):
    if _shown.get(element_id) != sentence:
        draw(element_id, [sentence] if sentence else [])
        _shown[element_id] = sentence


def draw_model():
    """Everything that shows the chosen model: its switches, the sentences about it, then the patterns."""
    switches = dom.to_json(train_state.switches_trees(STATE, _data["run"]))
    if _shown.get("fig-train-switches") != switches:  # redrawn only when they change: a field keeps its focus
        browser.window.mhaDraw("fig-train-switches", switches)
        _shown["fig-train-switches"] = switches
    draw("fig-train-story", train_state.story_trees(STATE, _data["run"]))
    draw("fig-train-reads", train_state.reads_trees(STATE, _data["run"]))
    draw("fig-seeds", train_state.seeds_trees(STATE, _data["run"]))
    draw_patterns()


def draw_patterns():
    """What a switch or the probe's sequence changes: the patterns, guesses, weight tables and scores."""
    draw("fig-probe", train_state.probe_trees(STATE, _data["run"]))
    draw("fig-probe-weights", train_state.probe_weights_trees(STATE, _data["run"]))
    draw("fig-train-scores", train_state.scores_trees(STATE, _data["run"]))


def set_running(running):
    """Buttons and slider while a run is on; the reader's model replaces the checkpoint frames."""
    _worker["running"] = running
    element("train-start").disabled = running
    element("train-stop").disabled = not running
    mine = running or STATE["source"] == "trained"
    element("train-step").disabled = mine
    element("fig-train-slider").hidden = mine  # the reader's run has no checkpoints to scrub
    element("train-frames-error").hidden = mine
    element("fig-train-frames").hidden = mine
    element("train-live").hidden = not mine
    element("train-mine-note").hidden = not mine  # says why the slider went, and how it comes back


# --- the worker ---------------------------------------------------------------------------

def start_worker():
    _worker.update(ready=False)
    worker = browser.window.mhaWorker(WORKER_MODULE)  # boot.js: under the page's policy
    worker.onmessage, worker.onerror = _worker["proxies"]
    _worker["js"] = worker


def stop_worker():
    if _worker["js"] is not None:
        _worker["js"].terminate()
    _worker.update(js=None, ready=False, pending=None)


def on_message(event):
    data = event.data
    kind = data.type
    if kind == "ready":
        _worker["ready"] = True
        if _worker["pending"] is not None:
            _worker["js"].postMessage(js_object(_worker["pending"]))
            _worker["pending"] = None
    elif kind == "failed":
        stop_worker()
        set_running(False)
        say("train-status", f"The training Python could not start: {data.reason}")
    elif kind == "progress":
        on_progress(data)
    elif kind == "measuring":
        say("train-status", f"Trained {dom.counted(_worker['step'], 'step')}. Measuring its heads on "
                            f"{fig.held_out_size()} held-out sequences\u2026")
    elif kind == "done":
        on_done(data)


def on_error(event):
    """The worker died (out of memory, most likely): say so; Train starts a fresh one."""
    event.preventDefault()
    stop_worker()
    set_running(False)
    say("train-status", "The training Python stopped unexpectedly. Press Train to try again.")


def on_progress(data):
    browser.window.mhaDraw("train-live", data.trees)  # built and checked by the worker: only drawn here
    _worker["step"] = int(data.step)
    STATE.update(train_state.with_trained(STATE, _worker["seed"], int(data.step), json.loads(data.params)))
    say("train-status", f"Training: step {data.step} of {data.steps}, {data.seconds:.1f} s.")
    draw_model()


def on_done(data):
    measured = json.loads(data.measured)
    STATE.update(train_state.with_trained(STATE, int(data.seed), int(data.steps), json.loads(data.params), measured))
    set_running(False)
    say("train-status", f"Done: {dom.counted(int(data.steps), 'step')} in {data.seconds:.1f} s; held-out accuracy "
                        f"{fig.percent(measured['ablated'][0])}. Reset goes back to the build-time run.")
    browser.window.mhaDraw("train-live", data.trees)  # the last frame, now with its held-out accuracy
    draw_model()


# --- handlers ---------------------------------------------------------------------------------

def on_train():
    try:
        seed = fig.parse_seed(element("train-seed").value)
        steps = fig.parse_steps(element("train-steps").value)
    except ValueError as error:
        say("train-seed-error", str(error))
        return
    say("train-seed-error", "")
    message = {"type": "train", "seed": seed, "steps": steps}
    stop_worker()  # a Python with nothing else in it: every run starts from a fresh worker
    start_worker()
    _worker["pending"] = message
    _worker.update(step=0, seed=seed)
    # the reader's earlier model is dropped; the build-time run shows until the new run's first progress
    STATE.update(train_state.with_reset(STATE))
    draw("train-live", [["p", {"class": "note"}, "Starting a Python for training\u2026"]])
    say("train-status", f"Starting the training Python (seed {seed})\u2026")
    set_running(True)
    draw_model()


def on_stop():
    if not _worker["running"]:
        return
    stop_worker()
    step = _worker["step"]
    if not step:  # no model yet: nothing of the run stays on screen
        draw("train-live", [])
    set_running(False)
    say("train-status", f"Stopped at step {step}. The probe shows the model as it was then; it is not "
                        f"measured, so train to the end for its scores." if step else
                        "Stopped before the first step: back to the build-time run.")
    draw_model()


def on_reset():
    stop_worker()
    STATE.update(train_state.with_reset(STATE))
    set_running(False)
    STATE.update(train_state.with_checkpoint(STATE, int(element("train-step").value), len(_data["run"]["checkpoints"])))
    say("train-status", "Back to the build-time run.")
    say("train-seed-error", "")
    draw("train-live", [])
    draw_model()


def on_step(target):
    STATE.update(train_state.with_checkpoint(STATE, int(target.value), len(_data["run"]["checkpoints"])))
    draw_model()


def on_sequence(target):
    try:
        STATE.update(train_state.with_sequence(STATE, target.value))
    except ValueError as error:
        say("probe-error", str(error))
        return
    say("probe-error", "")
    draw("fig-probe", train_state.probe_trees(STATE, _data["run"]))
    draw("fig-probe-weights", train_state.probe_weights_trees(STATE, _data["run"]))


def on_seed(target):
    """The seed and steps fields: a sentence as soon as either cannot be read."""
    try:
        fig.parse_seed(element("train-seed").value)
        fig.parse_steps(element("train-steps").value)
    except ValueError as error:
        say("train-seed-error", str(error))
        return
    say("train-seed-error", "")


def on_switch(target):
    params = train_state.model(STATE, _data["run"])[0]
    name = fig.head_names(params)[int(target.getAttribute("data-head"))]
    STATE.update(train_state.with_switch(STATE, name, bool(target.checked)))
    draw_patterns()


def on_preset(text):
    field = element("probe-sequence")
    field.value = text
    on_sequence(field)


INPUTS = {"train-step": on_step, "probe-sequence": on_sequence, "train-seed": on_seed, "train-steps": on_seed}
ACTIONS = {"train": on_train, "stop": on_stop, "reset": on_reset}


def on_input(event):
    target = event.target
    if target.id in INPUTS:
        INPUTS[target.id](target)


def on_change(event):
    if event.target.matches("input[data-head]"):
        on_switch(event.target)


def on_click(event):
    button = event.target.closest("button[data-train], button[data-sequence]")
    if not button or button.disabled:
        return
    if button.hasAttribute("data-sequence"):
        on_preset(button.getAttribute("data-sequence"))
    elif button.getAttribute("data-train") in ACTIONS:
        ACTIONS[button.getAttribute("data-train")]()


# --- start ------------------------------------------------------------------------------------

async def load():
    """Fetch the build-time run, then wake the section up from what the reader set before it arrived."""
    say("train-status", LOADING)
    try:
        response = await browser.window.fetch(DATA_URL)
        if not response.ok:
            raise OSError(f"the server answered {response.status}")
        _data["run"] = json.loads(await response.text())
    except Exception as error:  # a JS network error arrives as a JsException
        reason = str(error).strip().splitlines()[-1][:120] if str(error).strip() else type(error).__name__
        say("train-status", f"The build-time checkpoints could not be loaded ({reason}): reload the page.")
        return
    count = len(_data["run"]["checkpoints"])
    STATE.update(train_state.with_checkpoint(STATE, int(element("train-step").value), count))
    try:
        STATE.update(train_state.with_sequence(STATE, element("probe-sequence").value))
    except ValueError as error:
        say("probe-error", str(error))
    on_seed(None)  # what the reader typed into the seed and steps fields before the section woke
    section = element("trained")
    for kind, handler in (("input", on_input), ("change", on_change), ("click", on_click)):
        section.addEventListener(kind, browser.create_proxy(handler))
    for button in section.querySelectorAll("button[data-train], button[data-sequence]"):
        button.disabled = False
    set_running(False)
    draw_model()
    say("train-status", "")
    browser.document.body.dataset.training = "ready"


def setup(page_browser):
    """Called once by app/main.py: the worker's message handlers, then load() when the section comes near.

    page_browser: document, window, create_proxy and to_js, from app/main.py.
    """
    vars(browser).update(vars(page_browser))
    _worker["proxies"] = (browser.create_proxy(on_message), browser.create_proxy(on_error))
    # load() once, when the section comes within a screen's height or the reader points at, presses or
    # focuses something in it: boot.js's whenNear, the same rule as the frames and the code editor.
    start = browser.create_proxy(lambda: _data.update(task=asyncio.ensure_future(load())))
    browser.window.mhaWhenNear(browser.to_js([element("trained")]), start)
