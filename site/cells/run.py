"""Run a reader's code cell: captured output, and a traceback that starts at their code.

Pure Python (no js, no pyscript): it runs inside the cells' own interpreter, in
a Web Worker (cells/worker.py), and in the tests. The time limit is not here:
the page terminates the worker (app/cells.py), which stops any code, even a
single long call into C such as sum(range(10**12)).
"""

import ast
import contextlib
import inspect
import io
import linecache
import time
import traceback

CELL_FILE = "<cell>"
MAX_OUTPUT = 20_000  # characters of printed output kept; a print loop must not fill the page (or memory)
LIVE_WRITES = 100    # the first writes reach on_output one by one...
LIVE_PER_SECOND = 10  # ...then at most this often


async def run_cell(source, namespace=None, on_output=None):
    """exec(source) in a fresh namespace (plus the names in `namespace`, e.g. show); a coroutine.

    The code may use `await` at the top level (`await micropip.install(...)`): such a cell is
    awaited to its end. Code that awaits nothing finishes without ever suspending.
    Returns (output_text, error_text): everything printed to stdout and stderr
    (the first MAX_OUTPUT characters), and None or the error as the reader
    should see it: a traceback naming the file '<cell>' with line numbers.
    on_output(text_so_far), if given, hears the output while the cell runs
    (each write at first, then at most LIVE_PER_SECOND times a second), so a
    cell that is stopped later has still shown what it printed.
    """
    scope = {"__name__": "__main__", "__builtins__": __builtins__, "input": _no_input, **(namespace or {})}
    output = _CappedOutput(on_output)
    try:
        code = compile(source, CELL_FILE, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        return "", "".join(traceback.format_exception_only(type(error), error))
    _remember_source(source)
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        try:
            awaited = eval(code, scope)  # a coroutine if the code awaits at the top level, else None
            if inspect.iscoroutine(awaited):
                await awaited
        except BaseException as error:  # the reader's error, whatever it is, is shown, not raised
            return output.text(), format_error(error)
    return output.text(), None


class _CappedOutput(io.StringIO):
    """stdout and stderr of a cell: the first MAX_OUTPUT characters, then a count of what was dropped."""

    dropped = 0

    def __init__(self, on_output=None):
        super().__init__()
        self.on_output, self.told, self.last = on_output, 0, 0.0

    def write(self, text):
        room = MAX_OUTPUT - self.tell()
        if len(text) > room:
            self.dropped += len(text) - max(room, 0)
            text = text[:max(room, 0)]
        written = super().write(text) if text else 0
        if written and self.on_output is not None:
            self._tell()
        return written

    def _tell(self):
        """Pass the output on: every write for the first LIVE_WRITES, then LIVE_PER_SECOND times a second."""
        now = time.monotonic()
        if self.told < LIVE_WRITES or now - self.last >= 1 / LIVE_PER_SECOND:
            self.told, self.last = self.told + 1, now
            self.on_output(self.getvalue())

    def text(self):
        cut = f"\n[... {self.dropped} more characters of output not shown]\n" if self.dropped else ""
        return self.getvalue() + cut


def _no_input(prompt=""):
    """input() in a cell: there is no keyboard stream to read (the browser would pop up a dialog)."""
    raise RuntimeError("input() cannot ask anything in a cell: write the value into the code instead")


def _remember_source(source):
    """Let tracebacks quote the cell's lines (linecache keeps entries whose mtime is None)."""
    linecache.cache[CELL_FILE] = (len(source), None, source.splitlines(True), CELL_FILE)


def format_error(error):
    """The traceback from the reader's first line on: the runner's own frames are left out."""
    report = traceback.TracebackException.from_exception(error)
    frames = list(report.stack)
    first = next((i for i, f in enumerate(frames) if f.filename == CELL_FILE), len(frames))
    report.stack = traceback.StackSummary.from_list([f for f in frames[first:] if f.filename != __file__])
    return "".join(report.format())
