"""Code cells' glue on the page: Run, Stop, Reset and the editor keys; the code runs in a worker.

The cells have a Python of their own in a Web Worker (worker.mjs running
cells/worker.py), started once a cell comes within a screen's height, or is
pointed at, pressed or focused (boot.js's mhaWhenNear, which a Run press
always passes through): a reader who never reaches a cell never pays for a
second Python.
The page's interpreter, which draws the figures, never runs a reader's code.
A run that passes the time limit, or whose Stop is pressed, ends by terminating
the worker; a fresh one starts at once. One run at a time: a Run pressed
meanwhile waits its turn, and its Stop cancels it; a press that changes nothing says so. Every cell is found by its [data-cell] container;
its original code is the pre-rendered <textarea>'s defaultValue, and its code now
is the textarea's value, which the CodeMirror editor over it (cells/editor.mjs)
keeps up to date. The keys below serve the bare textarea, when that editor is not up.
"""

import json
from types import SimpleNamespace

from cells import view as cell_view
from page import dom

# The browser, handed over by app/main.py (the one module that imports pyscript and js) in setup().
browser = SimpleNamespace(document=None, window=None, create_proxy=None, to_js=None)

INDENT = "    "
MODIFIERS = ("Shift", "Control", "Alt", "Meta")
WORKER_MODULE = "cells.worker"  # worker.mjs hands each message to cells/worker.py

_page = {"show": None, "figure": None}  # the page's callbacks (setup)
_worker = {"js": None, "ready": False, "failed": None, "onmessage": None, "onerror": None, "on_limit": None}
_run = {"id": 0, "name": None, "started": 0.0, "timer": None}  # the run on now (name None: none)
_ran = {}       # run id -> the cell it ran, for the requests the page's policy refused it (worker.mjs)
_refused = {}   # cell name -> the URLs refused since its last Run or Reset
_queue = []        # cell names whose Run waits for the worker or for the run on now
_escaped = set()   # cells whose editor saw Esc: the next Tab / Shift+Tab leaves it
_typed = set()     # cells typed in since the focus came: only there does Tab indent (cells/view.py's TAB)


def draw(element_id, children):
    """Replace an element's children with cell_view trees: one call into boot.js."""
    browser.window.mhaDraw(element_id, dom.to_json(children))


def _say(name, sentence):
    draw(cell_view.element_id(name, "status"), [sentence])


def _button(name, action):
    return browser.document.querySelector(f'#{cell_view.element_id(name)} button[data-action="{action}"]')


# --- the worker ---------------------------------------------------------------------

def start_worker():
    """A fresh cells' interpreter in a worker; its files come from the HTTP cache the page filled."""
    _worker.update(ready=False, failed=None)
    _worker["js"] = browser.window.mhaWorker(WORKER_MODULE)  # boot.js: under the page's policy
    _worker["js"].onmessage = _worker["onmessage"]
    _worker["js"].onerror = _worker["onerror"]


def on_worker_message(event):
    message = event.data.to_py() if hasattr(event.data, "to_py") else event.data
    kind = message["type"]
    if kind == "ready":
        _worker["ready"] = True
        browser.document.body.dataset.cells = "ready"
        browser.document.body.dataset.cellsReadyMs = str(round(browser.window.performance.now()))
        _next()
    elif kind == "refused":  # may come after "done" (a request the code left running)
        _say_refused(message.get("id"), message["url"])
    elif kind == "failed":
        _worker["failed"] = message["reason"]
        browser.document.body.dataset.cells = "failed"
        for name in list(_queue):
            _queue.remove(name)
            _button(name, "stop").disabled = True
            _say(name, f"{cell_view.NO_PYTHON}: {message['reason']}")
    elif message.get("id") == _run["id"] and _run["name"] is not None:
        if kind == "output":
            draw(cell_view.element_id(_run["name"], "output"), cell_view.output(message["text"]))
        elif kind == "show":
            _show(json.loads(message["tokens"]))
        elif kind == "done":
            _finish(json.loads(message["result"]))


def on_worker_error(event):
    """The worker died (a crash in Python or WebAssembly): end the run on now, start a fresh worker."""
    event.preventDefault()  # reported in the cell; not an uncaught error of the page
    if _run["name"] is not None:
        _stop("crash")
    else:
        start_worker()


def _say_refused(run_id, url):
    """The page's policy refused a request of run run_id (maybe after it ended): say so under its cell."""
    name = _ran.get(run_id)
    if name is not None and url not in _refused.setdefault(name, []):
        _refused[name].append(url)
        draw(cell_view.element_id(name, "refused"), cell_view.refused(_refused[name]))


def _clear_refused(name):
    _refused[name] = []
    draw(cell_view.element_id(name, "refused"), [])


def _show(tokens):
    """A cell's show(tokens), already through the gate in the worker: draw it in the live figure."""
    try:
        _page["show"](tokens)
    except ValueError as error:  # the page's state moved on since Run: say so in the cell
        draw(cell_view.element_id(_run["name"], "error"), cell_view.error(f"show() was refused: {error}"))


# --- runs ---------------------------------------------------------------------------

def request_run(name):
    """Queue a run of the cell's code as it is when its turn comes; every press is answered in the status."""
    if name == _run["name"]:
        _say(name, cell_view.ALREADY_RUNNING)
        return
    if name in _queue:
        _say(name, cell_view.ALREADY_QUEUED)
        return
    if _worker["failed"]:
        _say(name, f"{cell_view.NO_PYTHON}: {_worker['failed']}")
        return
    _queue.append(name)
    _button(name, "stop").disabled = False  # Stop cancels a waiting run (and ends it once it runs)
    _say(name, cell_view.QUEUED if _run["name"] else cell_view.WAITING_FOR_PYTHON)
    _next()


def cancel(name):
    """Stop on a run still waiting its turn: it leaves the queue and never starts."""
    _queue.remove(name)
    _button(name, "stop").disabled = True
    _say(name, cell_view.CANCELLED)


def _next():
    """Start the first queued run, if the worker is ready and free."""
    if not (_worker["ready"] and _queue and _run["name"] is None):
        return
    name = _queue.pop(0)
    code = browser.document.getElementById(cell_view.element_id(name, "code")).value
    _run.update(id=_run["id"] + 1, name=name, started=browser.window.performance.now())
    _ran[_run["id"]] = name
    _run["timer"] = browser.window.setTimeout(_worker["on_limit"], round(cell_view.time_limit(name) * 1000))
    _button(name, "stop").disabled = False
    draw(cell_view.element_id(name, "output"), [])
    draw(cell_view.element_id(name, "error"), [])
    _clear_refused(name)
    _say(name, cell_view.running(name))
    message = {"id": _run["id"], "code": code, "figure": _page["figure"]()}
    _worker["js"].postMessage(browser.to_js(message, dict_converter=browser.window.Object.fromEntries))


def _end_run():
    """Forget the run on now; returns (its cell name, its seconds)."""
    name, seconds = _run["name"], (browser.window.performance.now() - _run["started"]) / 1000
    browser.window.clearTimeout(_run["timer"])
    _run.update(name=None, timer=None)
    _button(name, "stop").disabled = True
    return name, seconds


def _finish(result):
    name, _ = _end_run()
    draw(cell_view.element_id(name, "output"), cell_view.output(result["out"]))
    draw(cell_view.element_id(name, "error"), cell_view.error(result["error"]))
    _say(name, cell_view.ran_status(result["seconds"], result["error"], result["shown"]))
    _next()


def _stop(why):
    """End the run on now by terminating the worker ('limit', 'stop' or 'crash'); a fresh worker starts."""
    _worker["js"].terminate()
    name, seconds = _end_run()
    error, status = cell_view.stopped(name, seconds, why)
    draw(cell_view.element_id(name, "error"), cell_view.error(error))  # the output printed so far stays
    _say(name, status)
    start_worker()


def _limit():
    if _run["name"] is not None:
        _stop("limit")




def reset(name):
    """Put the original code back (the textarea's pre-rendered text) and clear the output.

    The "input" event is cells/editor.mjs's contract: the code editor over the textarea takes its new text.
    """
    code = browser.document.getElementById(cell_view.element_id(name, "code"))
    code.value = code.defaultValue
    code.dispatchEvent(browser.window.Event.new("input"))
    draw(cell_view.element_id(name, "output"), [])
    draw(cell_view.element_id(name, "error"), [])
    _clear_refused(name)
    _say(name, cell_view.RESET)


# --- events ---------------------------------------------------------------------------

def _cell_of(element):
    """The cell name of the [data-cell] container an event happened in."""
    return element.closest("[data-cell]").dataset.cell


def on_click(event):
    """Run, Stop or Reset."""
    button = event.target.closest("button[data-action]")
    if not button or button.disabled:  # closest() gives JS null (falsy, not None) off a button
        return
    name, action = _cell_of(button), button.dataset.action
    if action == "run":
        request_run(name)
    elif action == "stop" and _run["name"] == name:
        _stop("stop")
    elif action == "stop" and name in _queue:
        cancel(name)
    elif action == "reset":
        reset(name)


def on_keydown(event):
    """Ctrl/Cmd+Enter or Shift+Enter runs; once the reader has typed, Tab indents and Shift+Tab dedents, unless
    Esc came first. Before that Tab moves on, as everywhere on the page."""
    if event.key in MODIFIERS or not event.target.matches("textarea[data-cell-code]"):
        return  # Shift alone (the start of Shift+Tab) must not forget an Esc
    name = _cell_of(event.target)
    escaped = name in _escaped
    _escaped.discard(name)
    if event.key == "Escape":
        _escaped.add(name)
    elif event.key == "Enter" and (event.ctrlKey or event.metaKey or event.shiftKey):
        event.preventDefault()
        request_run(name)
    elif event.key == "Tab" and name in _typed and not escaped and not (event.altKey or event.ctrlKey or event.metaKey):
        event.preventDefault()
        (_dedent if event.shiftKey else _indent)(event.target)


def on_blur(event):
    _escaped.discard(_cell_of(event.target))
    _typed.discard(_cell_of(event.target))


def on_typed(event):
    """The reader typed in the bare textarea (Reset's own "input" event does not bubble here)."""
    if event.target.matches("textarea[data-cell-code]"):
        _typed.add(_cell_of(event.target))


def _indent(area):
    """Insert four spaces at the cursor (through the editing commands, so Ctrl+Z undoes it)."""
    if not browser.document.execCommand("insertText", False, INDENT):
        area.setRangeText(INDENT, area.selectionStart, area.selectionEnd, "end")


def _dedent(area):
    """Remove up to four spaces at the start of the cursor's line."""
    text, at = area.value, area.selectionStart
    start = text.rfind("\n", 0, at) + 1
    spaces = len(text[start:start + len(INDENT)]) - len(text[start:start + len(INDENT)].lstrip(" "))
    if spaces:
        area.setRangeText("", start, start + spaces, "preserve")


def setup(page_browser, show, figure):
    """Wake every cell up; the cells' worker starts when a cell comes near (boot.js's mhaWhenNear).

    page_browser: document, window, create_proxy and to_js, from app/main.py.
    show(tokens) puts tokens into the live figure (or raises ValueError);
    figure() returns the figure's settings as JSON text, sent with each Run.
    """
    vars(browser).update(vars(page_browser))
    _page.update(show=show, figure=figure)
    _worker.update(onmessage=browser.create_proxy(on_worker_message), onerror=browser.create_proxy(on_worker_error),
                   on_limit=browser.create_proxy(_limit))
    cells = browser.document.querySelectorAll("[data-cell]")
    browser.window.mhaWhenNear(browser.to_js(list(cells)), browser.create_proxy(start_worker))  # once
    for container in cells:
        name = container.dataset.cell
        draw(cell_view.element_id(name, "bar"), cell_view.bar(name, ready=True))
        container.addEventListener("click", browser.create_proxy(on_click))
        container.addEventListener("keydown", browser.create_proxy(on_keydown))
        container.addEventListener("focusout", browser.create_proxy(on_blur))
        container.addEventListener("input", browser.create_proxy(on_typed))
