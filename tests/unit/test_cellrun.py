"""The cell runner: captured output, tracebacks that start at the reader's code, a time limit."""

import sys

import pytest

from cellrun import run_cell

# --- test data ---------------------------------------------------------------

RUNAWAY = {  # loops that never end, and the lines of the loop the runner may name
    "while True:\n    pass\n": {1, 2},
    "x = 0\nwhile True:\n    try:\n        x += 1\n    except Exception:\n        pass\n": {2, 3, 4, 5, 6},
    "def spin():\n    while True:\n        pass\n\nspin()\n": {2, 3},
}

# --- tests ------------------------------------------------------------------------


def test_stdout_and_stderr_are_captured_in_order():
    out, error = run_cell("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\n")
    assert (out, error) == ("a\nb\nc\n", None)


def test_each_run_gets_a_fresh_namespace_plus_the_injected_names():
    seen = []
    run_cell("x = 1\nshow(x)\n", {"show": seen.append})
    out, error = run_cell("print('x' in globals())\n")
    assert seen == [1] and (out, error) == ("False\n", None)


def test_the_injected_namespace_is_not_changed():
    names = {"show": print}
    run_cell("show = None\ny = 2\n", names)
    assert names == {"show": print}


def test_a_traceback_starts_at_the_readers_code():
    source = "print('before')\ndef f(items):\n    return items[3]\nf([1])\n"
    out, error = run_cell(source)
    assert out == "before\n"
    lines = error.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == '  File "<cell>", line 4, in <module>'
    assert lines[2].strip() == "f([1])"
    assert '  File "<cell>", line 3, in f' in lines
    assert lines[-1] == "IndexError: list index out of range"
    assert "cellrun" not in error and "exec" not in error


def test_errors_inside_mha_show_the_path_from_the_cell():
    out, error = run_cell("import mha\nmha.multi_head_attention([[1.0, 2.0, 3.0]], 2)\n")
    assert error.splitlines()[1] == '  File "<cell>", line 2, in <module>'
    assert error.splitlines()[-1] == "ValueError: width 3 is not divisible by 2 heads"


def test_a_syntax_error_names_the_cell_line():
    out, error = run_cell("x = 1\nprint(x\n")
    assert out == "" and 'File "<cell>", line 2' in error and "SyntaxError" in error


@pytest.mark.parametrize("exit_code", ["SystemExit(3)", "KeyboardInterrupt()"])
def test_base_exceptions_are_reported_not_raised(exit_code):
    out, error = run_cell(f"print('hi')\nraise {exit_code}\n")
    assert out == "hi\n" and error.splitlines()[-1].startswith(exit_code.split("(")[0])


@pytest.mark.parametrize("source, lines", RUNAWAY.items())
def test_runaway_code_is_stopped_with_a_clear_message(source, lines):
    out, error = run_cell(source, time_limit=0.3)
    assert any(error.startswith(f"stopped after 0.3 s: the cell was still running at line {n}.") for n in lines)


def test_output_before_the_limit_is_kept():
    out, error = run_cell("print('started')\nwhile True:\n    pass\n", time_limit=0.3)
    assert out == "started\n" and error.startswith("stopped after 0.3 s")


def test_quick_code_is_not_stopped():
    out, error = run_cell("total = sum(i for i in range(10000))\nprint(total)\n", time_limit=0.3)
    assert (out, error) == ("49995000\n", None)


def test_runner_state_is_restored():
    def tracer(frame, event, arg):
        return None

    stdout, stderr = sys.stdout, sys.stderr
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run_cell("while True:\n    pass\n", time_limit=0.2)
        run_cell("raise ValueError('x')\n")
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)
    assert sys.stdout is stdout and sys.stderr is stderr


# --- cells share the interpreter with the page: protected modules are put back ---------------

PATCH_MHA = "import mha\nmha.softmax = None\nmha.multi_head_attention = lambda *a: 1 / 0\nmha.extra = 1\n"


def test_a_cell_cannot_monkeypatch_a_protected_module_for_good():
    import mha

    before = dict(vars(mha))
    out, error = run_cell(PATCH_MHA, protect=("mha",))
    assert error is None
    assert vars(mha) == before and "extra" not in vars(mha)
    assert mha.softmax([0.0, 0.0]) == [0.5, 0.5]


def test_protection_covers_submodules_and_failed_and_stopped_runs():
    import mha

    softmax_module = sys.modules["mha.softmax"]  # the package's `softmax` attribute is the function
    original = softmax_module.softmax
    for tail, limit in [("raise ValueError('x')\n", 5.0), ("while True:\n    pass\n", 0.2)]:
        patch = "import sys\nsys.modules['mha.softmax'].softmax = print\n"
        run_cell(patch + tail, time_limit=limit, protect=("mha",))
        assert softmax_module.softmax is original and mha.softmax is original


def test_page_code_called_from_a_cell_sees_the_modules_as_before_the_cell():
    """show() runs the page's figure code: inside page_view() it gets the real mha, then the cell's patch again."""
    import mha
    from cellrun import page_view

    seen = []

    def show():
        with page_view():
            seen.append(mha.softmax([0.0, 0.0]))
        seen.append(mha.softmax)

    run_cell(PATCH_MHA + "show()\n", {"show": show}, protect=("mha",))
    assert seen == [[0.5, 0.5], None]


def test_state_the_page_code_sets_during_show_is_kept():
    """The figure code may rebind its own globals when show() draws: that is the page's state, not the cell's."""
    import mha
    from cellrun import page_view

    def show():
        with page_view():
            mha.last_shown = "tokens"

    try:
        out, _ = run_cell(PATCH_MHA + "show()\nprint(mha.last_shown, mha.softmax)\n", {"show": show}, protect=("mha",))
        assert out == "tokens None\n"  # the cell sees the page's new state and still its own patch
        assert mha.last_shown == "tokens" and mha.softmax([0.0]) == [1.0]
    finally:
        vars(mha).pop("last_shown", None)


def test_a_print_loop_keeps_only_the_first_characters():
    """MAX_OUTPUT characters, then one line saying how much was left out; the run itself is not stopped."""
    from cellrun import MAX_OUTPUT

    out, error = run_cell("for i in range(100_000):\n    print('0123456789')\nprint('done')\n")
    assert error is None
    kept, note = out[:MAX_OUTPUT], out[MAX_OUTPUT:]
    assert kept == ("0123456789\n" * MAX_OUTPUT)[:MAX_OUTPUT]
    assert note == f"\n[... {100_000 * 11 + 5 - MAX_OUTPUT} more characters of output not shown]\n"


def test_input_says_why_it_cannot_work_in_a_cell():
    out, error = run_cell("name = input('name? ')\n")
    assert error.splitlines()[-1] == ("RuntimeError: input() cannot ask anything in a cell: "
                                      "write the value into the code instead")
    assert "cellrun" not in error
