"""The cell runner (cells/run.py): captured output, and tracebacks that start at the reader's code.

The time limit is the page's (it terminates the cells' worker): see tests/browser/test_page_cells.py.
"""

import sys

import pytest

from cells.run import run_cell
from conftest import finished

# --- tests ------------------------------------------------------------------------


def test_stdout_and_stderr_are_captured_in_order():
    out, error = finished(run_cell("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\n"))
    assert (out, error) == ("a\nb\nc\n", None)


def test_each_run_gets_a_fresh_namespace_plus_the_injected_names():
    seen = []
    finished(run_cell("x = 1\nshow(x)\n", {"show": seen.append}))
    out, error = finished(run_cell("print('x' in globals())\n"))
    assert seen == [1] and (out, error) == ("False\n", None)


def test_the_injected_namespace_is_not_changed():
    names = {"show": print}
    finished(run_cell("show = None\ny = 2\n", names))
    assert names == {"show": print}


def test_a_traceback_starts_at_the_readers_code():
    source = "print('before')\ndef f(items):\n    return items[3]\nf([1])\n"
    out, error = finished(run_cell(source))
    assert out == "before\n"
    lines = error.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == '  File "<cell>", line 4, in <module>'
    assert lines[2].strip() == "f([1])"
    assert '  File "<cell>", line 3, in f' in lines
    assert lines[-1] == "IndexError: list index out of range"
    assert "run.py" not in error and "exec" not in error


def test_errors_inside_mha_show_the_path_from_the_cell():
    out, error = finished(run_cell("import mha\nmha.multi_head_attention([[1.0, 2.0, 3.0]], 2)\n"))
    assert error.splitlines()[1] == '  File "<cell>", line 2, in <module>'
    assert error.splitlines()[-1] == "ValueError: width 3 is not divisible by 2 heads"


def test_a_syntax_error_names_the_cell_line():
    out, error = finished(run_cell("x = 1\nprint(x\n"))
    assert out == "" and 'File "<cell>", line 2' in error and "SyntaxError" in error


@pytest.mark.parametrize("exit_code", ["SystemExit(3)", "KeyboardInterrupt()"])
def test_base_exceptions_are_reported_not_raised(exit_code):
    out, error = finished(run_cell(f"print('hi')\nraise {exit_code}\n"))
    assert out == "hi\n" and error.splitlines()[-1].startswith(exit_code.split("(")[0])


def test_the_streams_are_put_back_after_a_run_and_after_a_failure():
    stdout, stderr = sys.stdout, sys.stderr
    finished(run_cell("print('x')\n"))
    finished(run_cell("raise ValueError('x')\n"))
    assert sys.stdout is stdout and sys.stderr is stderr


def test_a_print_loop_keeps_only_the_first_characters():
    """MAX_OUTPUT characters, then one line saying how much was left out; the run itself is not stopped."""
    from cells.run import MAX_OUTPUT

    out, error = finished(run_cell("for i in range(100_000):\n    print('0123456789')\nprint('done')\n"))
    assert error is None
    kept, note = out[:MAX_OUTPUT], out[MAX_OUTPUT:]
    assert kept == ("0123456789\n" * MAX_OUTPUT)[:MAX_OUTPUT]
    assert note == f"\n[... {100_000 * 11 + 5 - MAX_OUTPUT} more characters of output not shown]\n"


def test_input_says_why_it_cannot_work_in_a_cell():
    out, error = finished(run_cell("name = input('name? ')\n"))
    assert error.splitlines()[-1] == ("RuntimeError: input() cannot ask anything in a cell: "
                                      "write the value into the code instead")
    assert "run.py" not in error


def test_output_is_heard_while_the_cell_runs_and_ends_equal_to_the_result():
    heard = []
    out, error = finished(run_cell("print('a')\nprint('b')\n", on_output=heard.append))
    assert heard == ["a", "a\n", "a\nb", "a\nb\n"] and heard[-1] == out


def test_a_print_loop_is_heard_a_limited_number_of_times():
    """LIVE_WRITES one by one, then at most LIVE_PER_SECOND a second: a loop cannot flood the page."""
    from cells.run import LIVE_WRITES

    heard = []
    out, error = finished(run_cell("for i in range(5000):\n    print(i)\n", on_output=heard.append))
    assert error is None and LIVE_WRITES <= len(heard) < LIVE_WRITES + 20


def test_a_cell_may_await_at_the_top_level_and_its_output_and_error_are_kept():
    """`await micropip.install(...)` in a browser cell: the code is awaited to its end, its traceback still at its line."""
    import asyncio
    import threading

    ran = {}
    code = "import asyncio\nawait asyncio.sleep(0)\nprint('after')\nawait asyncio.sleep(0)\n1 / 0\n"
    worker = threading.Thread(target=lambda: ran.update(result=asyncio.run(run_cell(code))))
    worker.start()  # its own event loop: a browser test session's Playwright may hold this thread's
    worker.join()
    out, error = ran["result"]
    assert out == "after\n"
    assert error.splitlines()[-1] == "ZeroDivisionError: division by zero" and 'File "<cell>", line 5' in error


def test_code_that_awaits_nothing_never_suspends():
    with pytest.raises(StopIteration):
        run_cell("print('hi')\n").send(None)
