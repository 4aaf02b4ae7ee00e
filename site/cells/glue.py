"""Code cells' PyScript glue: Run, Reset and the editor keys, wired to cellrun and drawn by cell_view.

Cells run in the page's own interpreter (the one drawing the figures), so the
first Run answers at once and show(tokens) reaches the live figure. Every cell
is found by its [data-cell] container; its original code is the pre-rendered
<textarea>'s defaultValue, so edits typed while Python loaded are kept.
"""

import os
import sys
import time

from pyodide.ffi import create_once_callable, create_proxy
from pyscript import document, window

import cell_view
import cellrun
import dom

INDENT = "    "
MODIFIERS = ("Shift", "Control", "Alt", "Meta")
# Modules whose globals a cell may not change for good (cellrun restores them after each run);
# setup() adds every module of the page's own (site/*.py, PyScript's working directory).
LIBRARIES = ("mha", "math", "json", "builtins")

_page = {"show": None, "figure_tokens": None, "protect": LIBRARIES}
_escaped = set()  # cells whose editor saw Esc: the next Tab / Shift+Tab leaves it
_busy_until = {"ms": 0.0}  # performance.now() when the last run ended: clicks queued during it are dropped
_pending = set()  # cells asked to run whose run has not ended yet


def draw(element_id, children):
    """Replace an element's children with cell_view trees: one call into boot.js."""
    window.mhaDraw(element_id, dom.to_json(children))


def _namespace(shown):
    """The names a cell gets besides builtins: show(tokens) and, if the page offers it, figure_tokens()."""

    def show(tokens):
        """Put tokens (a list of equal-length lists of numbers) into the live figure above."""
        with cellrun.page_view():
            _page["show"](tokens)
        shown.append(len(tokens))

    names = {"show": show}
    if _page["figure_tokens"] is not None:
        def figure_tokens():
            """The live figure's tokens now: a list of lists of floats."""
            with cellrun.page_view():
                return _page["figure_tokens"]()

        names["figure_tokens"] = figure_tokens
    return names


def request_run(name):
    """Say 'Running...' and let the browser paint it, then run: a 5 s runaway is not a silent freeze."""
    if name in _pending:
        return
    _pending.add(name)
    _say(name, cell_view.RUNNING)
    after_paint = create_once_callable(lambda: _run_now(name))
    window.requestAnimationFrame(create_once_callable(lambda _time: window.setTimeout(after_paint, 0)))


def _run_now(name):
    try:
        run(name)
    finally:
        _pending.discard(name)
        _busy_until["ms"] = window.performance.now()


def run(name):
    """Run the cell's code as it is in the editor now; draw output, error and a status sentence."""
    code = document.getElementById(cell_view.element_id(name, "code"))
    shown = []
    started = time.perf_counter()
    out, error = cellrun.run_cell(code.value, _namespace(shown), cell_view.TIME_LIMIT, protect=_page["protect"])
    took = time.perf_counter() - started
    draw(cell_view.element_id(name, "output"), cell_view.output(out))
    draw(cell_view.element_id(name, "error"), cell_view.error(error))
    _say(name, cell_view.ran_status(took, error, sum(shown) if shown else None))


def reset(name):
    """Put the original code back (the textarea's pre-rendered text) and clear the output."""
    code = document.getElementById(cell_view.element_id(name, "code"))
    code.value = code.defaultValue
    draw(cell_view.element_id(name, "output"), [])
    draw(cell_view.element_id(name, "error"), [])
    _say(name, cell_view.RESET)


def _say(name, sentence):
    draw(cell_view.element_id(name, "status"), [sentence])


def _cell_of(element):
    """The cell name of the [data-cell] container an event happened in."""
    return element.closest("[data-cell]").dataset.cell


def on_click(event):
    """Run or Reset, for a click that was not queued while a cell was running."""
    button = event.target.closest("button[data-action]")
    if button is None or button.disabled or event.timeStamp < _busy_until["ms"]:
        return
    (request_run if button.dataset.action == "run" else reset)(_cell_of(button))


def on_keydown(event):
    """Ctrl/Cmd+Enter runs; Tab indents and Shift+Tab dedents, unless Esc came first (then they leave)."""
    if event.key in MODIFIERS or not event.target.matches("textarea[data-cell-code]"):
        return  # Shift alone (the start of Shift+Tab) must not forget an Esc
    name = _cell_of(event.target)
    escaped = name in _escaped
    _escaped.discard(name)
    if event.key == "Escape":
        _escaped.add(name)
    elif event.key == "Enter" and (event.ctrlKey or event.metaKey):
        event.preventDefault()
        if event.timeStamp >= _busy_until["ms"]:
            request_run(name)
    elif event.key == "Tab" and not escaped and not (event.altKey or event.ctrlKey or event.metaKey):
        event.preventDefault()
        (_dedent if event.shiftKey else _indent)(event.target)


def on_blur(event):
    _escaped.discard(_cell_of(event.target))


def _indent(area):
    """Insert four spaces at the cursor (through the editing commands, so Ctrl+Z undoes it)."""
    if not document.execCommand("insertText", False, INDENT):
        area.setRangeText(INDENT, area.selectionStart, area.selectionEnd, "end")


def _dedent(area):
    """Remove up to four spaces at the start of the cursor's line."""
    text, at = area.value, area.selectionStart
    start = text.rfind("\n", 0, at) + 1
    spaces = len(text[start:start + len(INDENT)]) - len(text[start:start + len(INDENT)].lstrip(" "))
    if spaces:
        area.setRangeText("", start, start + spaces, "preserve")


def _page_modules():
    """Names of the loaded modules that are the page's own files (figure, dom, cells_glue, ...)."""
    here = os.path.dirname(os.path.abspath(cell_view.__file__))
    files = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
    return tuple(name for name, file in files.items() if file and os.path.dirname(os.path.abspath(file)) == here)


def setup(show, figure_tokens=None):
    """Wake every cell up: enable Run / Reset, listen for clicks and keys.

    show(tokens) puts tokens into the live figure (or raises ValueError with a
    sentence); figure_tokens(), if given, returns the figure's tokens to a cell.
    """
    _page.update(show=show, figure_tokens=figure_tokens, protect=LIBRARIES + _page_modules())
    for container in document.querySelectorAll("[data-cell]"):
        name = container.dataset.cell
        draw(cell_view.element_id(name, "bar"), cell_view.bar(name, ready=True))
        container.addEventListener("click", create_proxy(on_click))
        container.addEventListener("keydown", create_proxy(on_keydown))
        container.addEventListener("focusout", create_proxy(on_blur))
