"""Code cells as dom trees: build.py pre-renders them, app/cells.py redraws their parts live.

A cell is a labelled <textarea> (the code), a bar with Run and Reset, the
printed <output> (aria-live) and a <pre> for the error (role="alert"). When a cell comes
near the screen or is focused, cells/editor.mjs lays a CodeMirror editor over the textarea
(hidden, kept in sync); until then, and without that script, the textarea is the editor. Ids follow
the cell's kebab name, e.g. two_heads -> #cell-two-heads-code. Pure Python: no
js, no pyscript, so the HTML a reader sees before Python loads is these trees.
"""

from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "sources"  # build time only: the browser reads the textarea
CELLS = ("two_heads", "one_head", "training")
TIME_LIMIT = 5.0  # seconds; the page then terminates the cells' worker (app/cells.py)
TIME_LIMITS = {"training": 120.0}  # a cell that trains: 300 steps take tens of seconds on a laptop
RUNS_HERE = ("Runs in this tab, in a Python of its own. It can read this site's own files; the page lets no "
             "code reach any other site.")
TAB = "Tab moves past the code. Once you type in it, Tab indents; Esc, then Tab, leaves."  # above the editor
WAITING = "Run works once Python has started (see the progress at the top)."
FAILED = "Python did not start, so this cell cannot run; its code is still here to read and copy."


def kebab(name):
    """two_heads -> two-heads: the cell's part of every element id."""
    return name.replace("_", "-")


def title(name):
    """two_heads -> 'two heads': the cell's name in labels and button names."""
    return name.replace("_", " ")


def element_id(name, part=""):
    """'cell-two-heads' (the container index.html gives), or 'cell-two-heads-code', '-bar', ..."""
    return f"cell-{kebab(name)}" + (f"-{part}" if part else "")


def time_limit(name):
    """Seconds a run of this cell may take before the page ends it."""
    return TIME_LIMITS.get(name, TIME_LIMIT)


def keys(name):
    """The key hint beside a cell's buttons, with its own time limit."""
    return f"Ctrl+Enter (\u2318+Enter) or Shift+Enter runs. Stop, or {time_limit(name):g} s, ends a run."


def running(name):
    """The status while the cell runs."""
    return f"Running\u2026 (Stop, or {time_limit(name):g} s, ends it)"


def source(name):
    """The cell's original code, from site/cells/sources/NAME.py (build time)."""
    return (SOURCES / f"{name}.py").read_text()


def cell(name, code):
    """The children of <div class="cell" data-cell=NAME>: label (and, on the first cell only, where it runs), editor,
    bar, output, error."""
    lines = code.rstrip("\n").count("\n") + 1
    note = [["small", {"class": "cell-note"}, RUNS_HERE]] if name == CELLS[0] else []  # said once, above the first
    return [
        ["div", {"class": "cell-head"},
         ["label", {"class": "cell-title", "for": element_id(name, "code")}, f"Python cell: {title(name)}"], *note,
         ["small", {"class": "cell-tab", "id": element_id(name, "tab")}, TAB]],  # before the editor Tab reaches
        ["textarea", {"id": element_id(name, "code"), "class": "cell-code", "rows": lines + 1,
                      "spellcheck": "false", "autocomplete": "off", "autocapitalize": "off",
                      "autocorrect": "off", "wrap": "off", "data-cell-code": name,
                      "aria-describedby": f"{element_id(name, 'tab')} {element_id(name, 'keys')}"}, code],
        ["div", {"class": "cell-bar", "id": element_id(name, "bar")}, *bar(name, ready=False)],
        ["output", {"class": "cell-output", "id": element_id(name, "output"), "for": element_id(name, "code"),
                    "aria-live": "polite", "aria-label": f"Output of cell: {title(name)}",
                    "tabindex": 0}],  # focusable: a wide table of numbers scrolls sideways on a phone
        ["pre", {"class": "cell-error", "id": element_id(name, "error"), "role": "alert"}],
        ["p", {"class": "cell-refused", "id": element_id(name, "refused"), "role": "status"}],
    ]


def bar(name, ready, status=""):
    """Run, Stop (while a run is on) and Reset (disabled until Python is ready), the key hint, a status sentence."""
    off = not ready
    hints = ([["small", {"class": "cell-keys", "id": element_id(name, "keys")}, keys(name)]] if ready else
             [["small", {"class": "cell-keys", "id": element_id(name, "keys")},
               ["span", {"class": "when-loading"}, WAITING], ["span", {"class": "when-failed"}, FAILED]]])
    return [
        ["button", {"type": "button", "class": "cell-run", "data-action": "run", "disabled": off,
                    "aria-label": f"Run cell: {title(name)}"}, "Run"],
        ["button", {"type": "button", "class": "cell-stop", "data-action": "stop", "disabled": True,
                    "aria-label": f"Stop cell: {title(name)}"}, "Stop"],
        ["button", {"type": "button", "class": "cell-reset", "data-action": "reset", "disabled": off,
                    "aria-label": f"Reset cell: {title(name)}"}, "Reset"],
        ["span", {"class": "cell-status", "id": element_id(name, "status"), "role": "status"}, status],
        *hints,
    ]


def output(text):
    """The <output>'s children: what the cell printed, or a word that it printed nothing."""
    return [text] if text else [["em", {}, "(the cell printed nothing)"]]


def error(text):
    """The error <pre>'s children: a traceback or the time-limit sentence; empty when the run went well."""
    return [text.rstrip("\n")] if text else []


def refused(urls):
    """The sentence under a cell whose code tried to reach another site: what was refused, and why."""
    if not urls:
        return []
    shown = ", ".join(urls[:3]) + (f" and {len(urls) - 3} more" if len(urls) > 3 else "")
    return [f"Refused by the page's security policy, nothing sent: {shown}. Code here cannot reach another "
            "site; it can fetch this site's own files (and micropip, the wheels the site ships)."]


def took(seconds):
    """0.0123 -> '12 ms', 2.5 -> '2.5 s'."""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def ran_status(seconds, error, shown=None):
    """The sentence next to the buttons after a run: how long, how it ended, what show() sent."""
    ended = f"Failed after {took(seconds)}: the traceback is below." if error else f"Ran in {took(seconds)}."
    if shown is None:
        return ended
    return f"{ended} show() sent {shown} token{'s' if shown != 1 else ''} to the figure."


def stopped(name, seconds, why):
    """The error text and the status after the page ended a run of cell NAME: why, and that the next Run works.

    why: 'limit' (the time limit), 'stop' (the Stop button) or 'crash' (the worker died).
    """
    reason = {"limit": f"it was still running after the {time_limit(name):g} s limit",
              "stop": "you pressed Stop",
              "crash": "its Python crashed (out of memory or stack, most likely)"}[why]
    error = (f"Stopped after {took(seconds)}: {reason}. The cells' Python has been restarted and your "
             "code is still here: fix it and press Run again (a loop that never ends is the usual cause).")
    return error, f"Stopped after {took(seconds)}: see why below."


WAITING_FOR_PYTHON = "Waiting for the cells' Python to start\u2026 (it loads in the background; Stop cancels this run)"
QUEUED = "Waiting for the running cell to finish\u2026 (Stop cancels this run)"
ALREADY_RUNNING = "Still running: that press changed nothing (Stop ends this run)."
ALREADY_QUEUED = "Already waiting its turn: that press changed nothing (Stop cancels it)."
CANCELLED = "Cancelled: the waiting run never started."
NO_PYTHON = "The cells' Python could not start"
RESET = "Reset: the original code is back."


def prerender():
    """{mark id: children} for index.html's <!--render:cell-KEBAB--> marks, from site/cells/sources/*.py."""
    return {element_id(name): cell(name, source(name)) for name in CELLS}
