"""Section 4 as a figure: the exercise's buttons, and what each one set, in words.

Two exercises make the same edit (token 1's time stamp, slots 2-3, set to token 0's):
the first with identity slices, where only head 1 reads those slots; the second with
random projections (the state's seed), where every head reads every slot. app/main.py
draws the lesson's tokens and then the edited ones (state.with_exercise), so the head
tables and the moved summary (figures/heads.py) mark what the edit moved. The numbers
the prose prints come from mha through state.compute.
"""

import functools

from figures.registry import Figure
from page import state as figure_state
from page.dom import share_text, vector_text

PRESETS = (  # (id = data-action, button text): section 4's buttons
    ("try-exercise", "exercise 1: give token 1 the time stamp of token 0 (identity slices)"),
    ("try-exercise-random", "exercise 2: the same edit with random projections"),
    ("preset-lesson", "back to the lesson's tokens"),
    ("reset-all", "reset the figures"),
)
EXERCISES = {"try-exercise": "identity", "try-exercise-random": "random"}  # button id -> projections


def preset_buttons():
    """The two exercises, the way back to the lesson's tokens, and a full reset."""
    return ["div", {"class": "buttons exercise-buttons"},
            *[["button", {"type": "button", "id": bid, "data-action": bid}, text] for bid, text in PRESETS]]


def _projections(state):
    if state["projections"] == "random":
        return f"random projections (seed {state['seed']})"
    return "identity slices"


def status(action, state):
    """What a section 4 button just set, in one sentence; `state` is the state it left."""
    if action == "try-exercise":
        return ("Set identity slices, 2 heads with their own keys and values and no causal mask; "
                "drew the lesson's tokens, then changed token 1's slots 2-3 to token 0's [0, 1].")
    if action == "try-exercise-random":
        return (f"Set {_projections(state)}, 2 heads with their own keys and values and no causal mask; "
                "drew the lesson's tokens, then made the same change to token 1's slots 2-3.")
    if action == "preset-lesson":
        mask = "on" if state["causal"] else "off"
        return (f"Put the lesson's two tokens back with 2 heads; kept {_projections(state)} and the causal mask "
                f"({mask}).")
    if action == "reset-all":
        return ("Reset the live figures to the worked example: identity slices, seed 0, no mask, "
                "no cross-attention, no distractors. Section 1's three tokens, the code cells, the trained model, "
                "your answers and the KV calculator keep theirs.")
    raise ValueError(f"no section 4 button called {action!r}")


# --- the sentence after the second exercise, at the reader's seed -----------------------

def random_rows(state):
    """{head: (its row 0 before the edit, after it)} under random projections with the state's seed, from mha."""
    return _random_rows_at(state["seed"])


@functools.lru_cache(maxsize=8)
def _random_rows_at(seed):
    """random_rows at a seed. The exercise's two states take their tokens, heads, mask and projections from the
    exercise, so nothing else of the reader's state reaches these rows: a token edit (this figure redraws on every
    "numbers" event) reuses them instead of drawing two sets of random projections again."""
    start, edited = figure_state.with_exercise(figure_state.changed(figure_state.default_state(), seed=seed), "random")
    before, after = (figure_state.compute(s).result.weights for s in (start, edited))
    return {h: (before[h][0], after[h][0]) for h in range(len(before))}


def random_sentence(state):
    """What the second exercise moves at the state's seed: each head's first row, before and after."""
    sentences = []
    for h, (before, after) in random_rows(state).items():
        was, now = vector_text(before, share_text), vector_text(after, share_text)
        subject = f"With seed {state['seed']}, head 0's first row" if h == 0 else f"Head {h}'s"
        sentences.append(f"{subject} {f'stays {was}' if was == now else f'goes from {was} to {now}'}.")
    return [" ".join(sentences)]


PROSE = {}

# --- the registry: this family's elements ----------------------------------------

FIGURES = {  # section 4: the exercises
    "fig-presets": Figure(lambda s, v, b: [preset_buttons()]),
    "exercise-random-rows": Figure(lambda s, v, b: random_sentence(s), ("numbers", "controls")),
}
