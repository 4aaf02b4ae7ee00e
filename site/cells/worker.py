"""The code cells' own Python, in a Web Worker: a cell never runs in the interpreter that draws the page.

cells/worker.mjs starts Pyodide, unpacks mha and the site's modules, and calls
run() for each Run. The page stops a cell by terminating the whole worker (the
time limit, the Stop button), so nothing here has to cooperate with a stop.
show() passes the page's own gate here first (page/state.py), so a figure that
would refuse the tokens raises in the cell, at the reader's line.
"""

import json
import time

from cells.run import run_cell
from page import state as figure_state


def run(code, figure_json, post_show, post_output):
    """Run a cell's code; returns JSON {"out", "error", "seconds", "shown"}.

    figure_json: the live figure's settings now (state.FIGURE_KEYS, as JSON);
    post_show(tokens_json): sends show()'s tokens to the page, which draws them;
    post_output(text): sends what the cell printed so far, while it runs.
    shown: how many tokens the last show() sent (None if it was never called).
    """
    figure = {**figure_state.default_state(), **json.loads(figure_json)}
    shown = []

    def show(tokens):
        """Put tokens (a list of equal-length lists of numbers) into the live figure above."""
        new = figure_state.with_shown_tokens(figure, tokens)
        figure_state.compute(new)  # the page's gate: raises ValueError with the page's sentence
        figure.update(new)
        post_show(json.dumps(new["tokens"]))
        shown.append(len(new["tokens"]))

    def figure_tokens():
        """The live figure's tokens (as they were when Run was pressed, plus what show() sent since)."""
        return [list(row) for row in figure["tokens"]]

    started = time.perf_counter()
    out, error = run_cell(code, {"show": show, "figure_tokens": figure_tokens}, post_output)
    return json.dumps({"out": out, "error": error, "seconds": time.perf_counter() - started,
                       "shown": shown[-1] if shown else None})
