"""The code cells' own Python, in a Web Worker: a cell never runs in the interpreter that draws the page.

worker.mjs?module=cells.worker starts Pyodide, unpacks mha and the site's modules,
and calls handle() for each Run. The page stops a cell by terminating the whole worker (the
time limit, the Stop button), so nothing here has to cooperate with a stop.
show() passes the page's own gate here first (page/state.py), so a figure that
would refuse the tokens raises in the cell, at the reader's line.
"""

import json
import re
import time

from cells.run import run_cell
from page import state as figure_state


async def run(code, figure_json, post_show, post_output):
    """Run a cell's code (a coroutine); returns JSON {"out", "error", "seconds", "shown"}.

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
    out, error = await run_cell(code, {"show": show, "figure_tokens": figure_tokens}, post_output)
    return json.dumps({"out": out, "error": error, "seconds": time.perf_counter() - started,
                       "shown": shown[-1] if shown else None})


async def handle(message_json, post):
    """One Run from the page: {"id", "code", "figure"} -> posts {"type": "show" | "output" | "done", "id", ...}.

    A cell that imports micropip gets it loaded first (it is shipped, but not loaded on the way to ready).
    """
    message = json.loads(message_json)
    run_id, code = message["id"], message["code"]
    if re.search(r"^\s*(import|from)\s+micropip\b", code, re.M):
        import pyodide_js

        await pyodide_js.loadPackage("micropip")

    def send(kind, **fields):
        post(json.dumps({"type": kind, "id": run_id, **fields}))

    result = await run(code, message["figure"], lambda tokens: send("show", tokens=tokens),
                       lambda text: send("output", text=text))
    send("done", result=result)
