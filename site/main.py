"""Live figures: read the token grid, run mha through figure.py, redraw every head table.

Runs in the browser only (PyScript); build.py pre-renders the same trees from
figure.py, so this file just wires inputs to drawing. No math here.
"""

from pyscript import document, when, window

import cells_glue
import dom
import figure


def read_grid():
    """The grid's field texts as typed, rows = tokens, columns = slots."""
    rows = {}
    for field in document.querySelectorAll(f"#{figure.GRID_ID} input"):
        rows.setdefault(int(field.dataset.token), {})[int(field.dataset.slot)] = field.value
    return [[row[s] for s in sorted(row)] for _, row in sorted(rows.items())]


def draw(element_id, children):
    """Replace an element's children with figure trees: one call into boot.js."""
    window.mhaDraw(element_id, dom.to_json(children))


_shown = {"error": ""}  # the sentence on screen now, so a redraw clears it only when needed


def show_error(message):
    """The sentence next to the grid; the figures keep their last valid state."""
    if message != _shown["error"]:
        draw(figure.ERROR_ID, [message] if message else [])
        _shown["error"] = message


def redraw():
    """Parse the grid and redraw every head, or say which field is wrong."""
    try:
        figures = figure.head_figures(figure.parse_grid(read_grid()))
    except ValueError as error:
        show_error(str(error))
        return
    draw(figure.FIGURES_ID, figures)
    show_error("")


@when("input", f"#{figure.GRID_ID}")
def on_grid_input(event):
    """Any field of the grid changed (the event bubbles up to the grid)."""
    redraw()


def show_tokens(tokens):
    """A code cell's show(tokens): put them in the live figure (placeholder until the lesson page lands)."""


# Edits typed while Python was loading are already in the fields: draw them now.
redraw()
cells_glue.setup(show=show_tokens)
window.mhaReady()
