"""Every live figure of the page in one table: element id -> how to build its children, and when.

FIGURES[element_id] = Figure(build, redraw, patch, mark), merged from each family module's own
FIGURES (figures/heads.py, kv.py, competition.py, ...):
- build(state, view, before) -> the element's children (trees, see page.dom); `view` is
  state.compute(state), `before` the View shown until now (None: no change markers).
- redraw: the events after which app/main.py draws it again:
    "numbers"    any number in the tokens or context changed (the head tables, the summary)
    "structure"  sizes changed: width, heads, key/value heads, a token added or removed
    "token-grid", "context-grid"  a grid's fields themselves (a preset, a new width, a shared link)
    "controls"   every picker and switch from the state (a preset, a reset, a shared link)
    "model"      the KV calculator switched model;  "kv": one of its fields changed
    "competition"  the distractor count changed
    "cost"       section 2's sequence length changed (one layer of mha.COST_MODEL)
    "blend"      one of section 1's own three tokens changed;  "blend-grid": its fields too (its reset)
  An empty tuple: drawn at build time only (static tables, buttons main.py toggles in place).
- patch(state, view, before) -> the same numbers as build, for boot.js's mhaPatch (same shape only).
- mark: index.html has a <!--render:ID--> mark for it (False for parts inside another figure).

build.py pre-renders every marked figure from the default state; main.py draws the same
builders live. Each element id is paired with what fills it once, in its family's module;
prose() likewise merges each module's PROSE, the numbers build.py writes into <!--value:KEY--> marks.
"""

from figures import competition, exercise, heads, kv, questions, recipe, seeds, text, training
from figures.registry import Figure  # noqa: F401  (the type every FIGURES entry is)
from page import state as figure_state

FAMILIES = (recipe, heads, exercise, competition, training, seeds, text, kv, questions)  # pictures.py: heads' helpers


def _merged(name):
    merged = {}
    for family in FAMILIES:
        table = getattr(family, name)
        twice = merged.keys() & table.keys()
        if twice:
            raise ValueError(f"{family.__name__}.{name} repeats {sorted(twice)}")
        merged.update(table)
    return merged


FIGURES = _merged("FIGURES")
PROSE = _merged("PROSE")


def redrawn_by(event):
    """The element ids drawn again after an event."""
    return [element_id for element_id, figure in FIGURES.items() if event in figure.redraw]


def prerender():
    """Element id -> its children in the default state: what build.py writes into index.html."""
    state = figure_state.default_state()
    view = figure_state.compute(state)
    return {element_id: figure.build(state, view, None) for element_id, figure in FIGURES.items() if figure.mark}


def prose():
    """Numbers in the lesson's prose, computed by mha at build time: <!--value:KEY--> marks -> trees or text."""
    return {key: make() for key, make in PROSE.items()}
