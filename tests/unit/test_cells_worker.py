"""cells/worker.py, the cells' side of the worker, run in CPython: show() passes the page's gate first.

The worker's JavaScript half (worker.mjs) and the page's stop are tested in
the browser (tests/browser/test_page_cells.py).
"""

import json

import pytest

from cells.worker import run
from conftest import finished
from page import state as figure_state

# --- test data ---------------------------------------------------------------

FIGURE = json.dumps({key: figure_state.default_state()[key] for key in figure_state.FIGURE_KEYS})


def run_here(code, figure=FIGURE):
    """(result dict, show posts, output posts) of one run."""
    shows, outputs = [], []
    result = json.loads(finished(run(code, figure, shows.append, outputs.append)))
    return result, shows, outputs


# --- tests ---------------------------------------------------------------------

def test_show_posts_the_tokens_and_figure_tokens_then_reads_them():
    result, shows, _ = run_here("show([[1, 0, 0, 1], [0.9, 0.1, 0, 1]])\nprint(figure_tokens())\n")
    assert result["error"] is None and result["shown"] == 2
    assert json.loads(shows[0]) == [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]
    assert result["out"] == "[[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]\n"


def test_figure_tokens_are_the_figures_when_run_was_pressed():
    figure = json.loads(FIGURE) | {"tokens": [[2.0, 0.0, 0.0, 0.0]]}
    result, _, _ = run_here("print(figure_tokens())\n", json.dumps(figure))
    assert result["out"] == "[[2.0, 0.0, 0.0, 0.0]]\n" and result["shown"] is None


def test_show_refused_by_the_gate_raises_in_the_cell_and_posts_nothing():
    """Width 3 with the figure's 2 heads would be fitted to 1 head; 1e200 squared overflows in every head."""
    result, shows, _ = run_here("show([[1e200, 0.0, 0.0, 0.0]])\n")
    assert shows == [] and result["error"].splitlines()[-1].startswith("ValueError: ")
    assert "overflowed" in result["error"] and 'File "<cell>", line 1' in result["error"]
    result, shows, _ = run_here("show('abc')\n")
    assert shows == [] and "show() needs a list of token vectors" in result["error"]


def test_output_is_posted_while_the_cell_runs():
    result, _, outputs = run_here("print('started')\nx = 1\n")
    assert outputs == ["started", "started\n"] and result["out"] == "started\n"


def test_handle_posts_output_show_and_done_for_one_run():
    from cells.worker import handle

    posted = []
    message = json.dumps({"id": 7, "code": "print('hi')\nshow([[1, 0, 0, 1]])\n", "figure": FIGURE})
    run = handle(message, lambda text: posted.append(json.loads(text)))
    with pytest.raises(StopIteration):  # no micropip import, so handle() never waits: one step runs it all
        run.send(None)  # (no event loop: the browser tests' Playwright may hold this thread's)
    assert [(m["type"], m["id"]) for m in posted] == [("output", 7), ("output", 7), ("show", 7), ("done", 7)]
    assert json.loads(posted[-1]["result"])["out"] == "hi\n"
