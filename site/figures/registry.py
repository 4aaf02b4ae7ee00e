"""What a figure is to the page: a builder, the events that redraw it, a patcher, a mark.

Each family module (figures/heads.py, kv.py, competition.py, ...) ends with
FIGURES = {element id: Figure(...)} for the elements it fills, and PROSE =
{key: function} for numbers its section's prose prints; figures/__init__.py
merges them into the page's one table. See figures/__init__.py for the events.
"""

from typing import Callable, NamedTuple


class Figure(NamedTuple):
    """build(state, view, before) -> children; redraw: events; patch(state, view, before) -> mhaPatch data."""

    build: Callable
    redraw: tuple = ()
    patch: Callable = None
    mark: bool = True  # index.html (a section file) has a <!--render:ID--> mark for it


NO_PATCH = {"text": "", "class": "", "value": [], "delta": "", "marked": []}  # an empty element's patch
