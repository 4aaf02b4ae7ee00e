"""Run a reader's code cell: captured output, a traceback that starts at their code, a time limit.

Pure Python (no js, no pyscript), so the page's Run button and the tests call
the same function: run_cell(source, namespace) -> (output_text, error_text or None).
The time limit is a sys.settrace hook: it stops runaway Python loops, but not a
single long call into C (such as sum(range(10**12))), nor a loop whose bare
`except:` swallows the stop (CPython switches tracing off once the hook raises).

Cells share the interpreter with the page, so `protect` names modules (mha,
math, the page's own) whose globals are put back after each run: a cell that
monkeypatches mha.softmax cannot break the live figure. Page code a cell calls
mid-run (show) runs inside page_view(), which sees the modules as they were
before the cell started. Objects changed in place (mha.LESSON_TOKENS[0][0] = 9)
are not undone.
"""

import contextlib
import io
import linecache
import sys
import time
import traceback

CELL_FILE = "<cell>"
DEFAULT_LIMIT = 5.0  # seconds
MAX_OUTPUT = 20_000  # characters of printed output kept; a print loop must not fill the page (or memory)


class CellTimeout(BaseException):
    """Raised in the reader's code at the time limit; a BaseException, so `except Exception` lets it pass."""


_before = []  # a snapshot of the protected modules per running cell (a stack: cells may nest)


def run_cell(source, namespace=None, time_limit=DEFAULT_LIMIT, protect=()):
    """exec(source) in a fresh namespace (plus the names in `namespace`, e.g. show).

    protect: module names (a name covers its submodules, "mha" covers "mha.softmax")
    whose globals are restored when the cell ends.

    Returns (output_text, error_text): everything printed to stdout and stderr,
    and None or the error as the reader should see it: a traceback naming the
    file '<cell>' with line numbers, or 'stopped after 5 s: ...'.
    """
    scope = {"__name__": "__main__", "__builtins__": __builtins__, "input": _no_input, **(namespace or {})}
    output = _CappedOutput()
    try:
        code = compile(source, CELL_FILE, "exec")
    except SyntaxError as error:
        return "", "".join(traceback.format_exception_only(type(error), error))
    _remember_source(source)
    _before.append(_snapshot(protect))
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            error = _exec_with_limit(code, scope, time_limit)
    finally:
        _restore(_before.pop())
    if isinstance(error, CellTimeout):
        return output.text(), _timeout_message(error, time_limit)
    return output.text(), None if error is None else format_error(error)


class _CappedOutput(io.StringIO):
    """stdout and stderr of a cell: the first MAX_OUTPUT characters, then a count of what was dropped."""

    dropped = 0

    def write(self, text):
        room = MAX_OUTPUT - self.tell()
        if len(text) > room:
            self.dropped += len(text) - max(room, 0)
            text = text[:max(room, 0)]
        return super().write(text) if text else 0

    def text(self):
        cut = f"\n[... {self.dropped} more characters of output not shown]\n" if self.dropped else ""
        return self.getvalue() + cut


def _no_input(prompt=""):
    """input() in a cell: there is no keyboard stream to read (the browser would pop up a dialog)."""
    raise RuntimeError("input() cannot ask anything in a cell: write the value into the code instead")


@contextlib.contextmanager
def page_view():
    """For page code called from a running cell: the protected modules as before the cell, then back.

    Globals the page code itself rebinds meanwhile (its own state) are kept, during and after the cell.
    """
    if not _before:
        yield
        return
    before = _before[-1]
    during = _snapshot(before)
    _restore(before)
    try:
        yield
    finally:
        for module, saved in _snapshot(before).items():
            for name, value in saved.items():
                if before[module].get(name, _restore) is not value:
                    before[module][name] = during[module][name] = value
        _restore(during)


def _snapshot(names):
    """{module: copy of its globals} for the loaded modules named (or under a name) in `names`."""
    if isinstance(names, dict):  # an earlier snapshot: the same modules again
        modules = list(names)
    else:
        modules = [m for n, m in list(sys.modules.items())
                   if m is not None and any(n == p or n.startswith(p + ".") for p in names)]
    return {module: dict(vars(module)) for module in modules}


def _restore(snapshot):
    """Put each module's globals back: names added are removed, names changed get their old value."""
    for module, saved in snapshot.items():
        current = vars(module)
        for name in [n for n in current if n not in saved]:
            del current[name]
        for name, value in saved.items():
            if current.get(name, _restore) is not value:
                current[name] = value


def _remember_source(source):
    """Let tracebacks quote the cell's lines (linecache keeps entries whose mtime is None)."""
    linecache.cache[CELL_FILE] = (len(source), None, source.splitlines(True), CELL_FILE)


def _exec_with_limit(code, scope, time_limit):
    """exec(code, scope) under a deadline; returns the exception it raised, or None."""
    deadline = time.monotonic() + time_limit

    def check(frame, event, arg):
        if time.monotonic() > deadline:
            raise CellTimeout(frame.f_lineno if frame.f_code.co_filename == CELL_FILE else None)
        return check if frame.f_code.co_filename == CELL_FILE else None

    previous = sys.gettrace()
    sys.settrace(check)
    try:
        exec(code, scope)
    except BaseException as error:  # the reader's error, whatever it is, is shown, not raised
        return error
    finally:
        sys.settrace(previous)
    return None


def format_error(error):
    """The traceback from the reader's first line on: the runner's own frames are left out."""
    report = traceback.TracebackException.from_exception(error)
    frames = list(report.stack)
    first = next((i for i, f in enumerate(frames) if f.filename == CELL_FILE), len(frames))
    report.stack = traceback.StackSummary.from_list([f for f in frames[first:] if f.filename != __file__])
    return "".join(report.format())


def _timeout_message(error, time_limit):
    """'stopped after 5 s: the cell was still running at line 3 ...'."""
    line = error.args[0] if error.args else None
    where = f" at line {line}" if line else ""
    return (f"stopped after {time_limit:g} s: the cell was still running{where}. "
            "A loop that never ends is the usual cause; fix it and press Run again.")
