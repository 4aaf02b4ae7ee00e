"""The trained model's section state, and its pure transitions (unit-tested in CPython).

Separate from the attention figure's state (page/state.py): nothing here reaches the figures above.

    {"checkpoint": index of the build-time checkpoint the slider chose,
     "tokens": the probe's sequence (ints 0-5),
     "off": frozenset of (layer, head) switched off,
     "trained": None, or the reader's own model: {"seed", "steps", "params", "measured"}
                (measured: figures.training.measure()'s dict, or None until measured),
     "source": "checkpoint" or "trained": which model the probe and the scores show}

The data of the build-time run (figures.training.run_data(), fetched as training.json) is passed
in where a transition needs it; the state only holds choices.
"""

import mha.training
from figures import seeds
from figures import training as fig
from page.dom import counted


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
    """(params, measured or None, whose) of the model the section shows now; data: the build-time run.
    whose names it in a sentence: "your run (seed 3, 200 steps)", "the build-time run at step 40"."""
    if state["source"] == "trained" and state["trained"] is not None:
        t = state["trained"]
        return t["params"], t["measured"], f"your run (seed {t['seed']}, {counted(t['steps'], 'step')})"
    checkpoint = data["checkpoints"][state["checkpoint"]]
    return (mha.training.params_from_checkpoint(checkpoint), checkpoint, fig.run_name(data, state["checkpoint"]))


def shown_off(state, params):
    """The switched-off heads that the shown model has (a switch of a head it lacks is ignored)."""
    return frozenset(name for name in state["off"] if name in set(fig.head_names(params)))


def probe_trees(state, data):
    """fig-probe's children for the state: the patterns and guesses with the switched-off heads left out."""
    params, _, whose = model(state, data)
    return fig.probe(params, list(state["tokens"]), fig.capitalised(whose), shown_off(state, params))


def probe_weights_trees(state, data):
    """fig-probe-weights' children: the same patterns as tables."""
    params = model(state, data)[0]
    return fig.probe_weights(params, list(state["tokens"]), shown_off(state, params))


def switches_trees(state, data):
    """fig-train-switches' children: one switch per head of the shown model."""
    params = model(state, data)[0]
    return fig.switches(fig.head_names(params), shown_off(state, params), enabled=True)


def scores_trees(state, data):
    """fig-train-scores' children for the state (a sentence while the reader's model is being measured)."""
    params, measured, whose = model(state, data)
    if measured is None:
        return [["p", {"class": "note"}, f"{fig.capitalised(whose)}: its scores and accuracy are measured when "
                                         f"training ends; the patterns and guesses above already leave out a head "
                                         f"switched off."]]
    return fig.scores_table(measured, fig.head_names(params), shown_off(state, params), fig.capitalised(whose), params)


def story_trees(state, data):
    """fig-train-story's children: the sentences about the shown run, from its measurements."""
    _, measured, whose = model(state, data)
    if measured is None:
        return fig.unmeasured(whose)
    done = state["source"] == "trained" or fig.finished(data, state["checkpoint"])  # a reader's run is measured at its end
    return fig.story(fig.describe_run(measured, done), whose)


def reads_trees(state, data):
    """fig-train-reads' children: what switching off each earlier head does to the shown run's induction head."""
    _, measured, _ = model(state, data)
    return [] if measured is None else fig.reads_through(fig.describe_run(measured))


def seeds_trees(state, data):
    """fig-seeds' children: the many-seed figure from the run's copy of its rows, the reader's measured run (if
    any, shown or not) ringed among them."""
    sweep, trained = data["seeds"], state["trained"]
    mine = None
    if trained is not None and trained["measured"] is not None:
        mine = {"seed": trained["seed"], "steps": trained["steps"], "accuracy": trained["measured"]["ablated"][0]}
    return [seeds.figure(sweep["seeds"], sweep["setting"]["steps"], mine)]
