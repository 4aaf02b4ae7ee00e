"""The trained model's section state, and its pure transitions (unit-tested in CPython).

Separate from the attention figure's state (page/state.py): nothing here reaches the figures above.

    {"checkpoint": index of the build-time checkpoint the slider chose,
     "tokens": the probe's sequence (ints 0-5),
     "off": frozenset of (layer, head) switched off,
     "trained": None, or the reader's own model: {"seed", "steps", "params", "measured"}
                (measured: figures.training.measure()'s {"scores", "ablated"}, or None until measured),
     "source": "checkpoint" or "trained": which model the probe and the scores show}

The data of the build-time run (figures.training.run_data(), fetched as training.json) is passed
in where a transition needs it; the state only holds choices.
"""

import mha.training
from figures import training as fig


def default_state(count=fig.COUNT):
    """The last checkpoint, the sample sequence, every head on, no model of the reader's own."""
    return {"checkpoint": count - 1, "tokens": tuple(fig.parse_sequence(fig.SAMPLE)), "off": frozenset(),
            "trained": None, "source": "checkpoint"}


def with_checkpoint(state, index, count):
    """The slider moved: that checkpoint (0..count-1) is probed; the reader's model is kept but not shown."""
    index = int(index)
    if not 0 <= index < count:
        raise ValueError(f"checkpoint {index} does not exist: there are {count}")
    return {**state, "checkpoint": index, "source": "checkpoint"}


def with_sequence(state, text):
    """The probe's field: its text parsed (ValueError with the sentence the page shows)."""
    return {**state, "tokens": tuple(fig.parse_sequence(text))}


def with_switch(state, name, off):
    """A head switched off (off=True) or back on; name is (layer, head)."""
    name = tuple(name)
    return {**state, "off": state["off"] | {name} if off else state["off"] - {name}}


def with_trained(state, seed, steps, params, measured=None):
    """The reader's model (so far, or finished): the probe and the scores show it."""
    return {**state, "trained": {"seed": seed, "steps": steps, "params": params, "measured": measured},
            "source": "trained"}


def with_reset(state):
    """Back to the build-time checkpoints: the reader's model is dropped; the sequence and switches stay."""
    return {**state, "trained": None, "source": "checkpoint"}


def model(state, data):
    """(params, measured or None, name) of the model the section shows now; data: the build-time run."""
    if state["source"] == "trained" and state["trained"] is not None:
        t = state["trained"]
        return t["params"], t["measured"], f"Your model (seed {t['seed']}, {t['steps']} steps)"
    checkpoint = data["checkpoints"][state["checkpoint"]]
    return (mha.training.params_from_checkpoint(checkpoint), checkpoint,
            fig.checkpoint_name(data, state["checkpoint"]))


def probe_trees(state, data):
    """fig-probe's children for the state."""
    params, _, name = model(state, data)
    return fig.probe(params, list(state["tokens"]), name)


def scores_trees(state, data):
    """fig-train-scores' children for the state (a sentence while the reader's model is being measured)."""
    params, measured, name = model(state, data)
    if measured is None:
        return [["p", {"class": "note"}, f"{name}: its scores and ablations are measured when training ends."]]
    return fig.scores_table(measured, fig.head_names(params), state["off"], name)
