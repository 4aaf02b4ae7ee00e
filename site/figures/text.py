"""The text model's section ("Heads on your own prompt"): its state, its pure transitions, and its trees.

The model is mha.text's, trained by scripts/train_text_model.py and shipped in mha; every number here
comes from mha.text (read, extend, the model's measurements) or mha.text_lesson (the experiments).
This module arranges them; app/text.py reads the field, calls these and draws.

    state = {"text": the text the model reads (parsed: lower case), "off": frozenset of (layer, head),
             "chosen": the query position whose weights are printed (None: the last)}

- fig-text-reads: what the model reads, one character a cell, and its guess for the next one under each
  (outlined where the text's next character matches it).
- fig-text-switches: one checkbox per head. fig-text-maps: each head's weights, characters on both axes,
  the chosen row's cells readable (hover, or focus and the arrow keys: boot.js writes them into the readout).
- fig-text-near, fig-text-moved: the two experiments' sentences.
- PROSE: the model's size, data, training and measurements, for the section's <!--value:KEY--> marks.
"""

import functools

import mha.text
import mha.text_lesson as lesson
from figures.heatmap import CELL, MARGIN, heat_map  # a map's cell and margin in CSS px (row_at reads them)
from figures.registry import Figure
from figures.training import head_label, percent  # section 8's names and percentages, one way
from page.dom import apart, classes, share_text

SHOWN = {"\n": "\u21b5", " ": "\u2423"}  # how a newline and a space are drawn in a cell


@functools.cache
def model():
    return mha.text.load()


def names():
    """[(layer, head), ...] in layer order: the order of a Reading's heads and of the switches."""
    return model().names


def shown(c):
    return SHOWN.get(c, c)


# --- state and transitions ------------------------------------------------------------------

def default_state():
    return {"text": lesson.DEFAULT_PROMPT, "off": frozenset(), "chosen": None}


def with_text(state, typed):
    """The field's text through mha.text.parse_text (ValueError with its sentence); the chosen row kept if it
    still exists."""
    text = mha.text.parse_text(model(), typed)
    chosen = state["chosen"] if state["chosen"] is not None and state["chosen"] < len(text) else None
    return {**state, "text": text, "chosen": chosen}


def with_switch(state, name, off):
    name = tuple(name)
    return {**state, "off": state["off"] | {name} if off else state["off"] - {name}}


def with_chosen(state, position):
    """The query row to read: 0 .. len(text) - 1 (ValueError outside); the last row follows the text's end."""
    if not 0 <= position < len(state["text"]):
        raise ValueError(f"position {position} is not in the text: it has {len(state['text'])} characters")
    return {**state, "chosen": None if position == len(state["text"]) - 1 else position}


def chosen(state):
    return len(state["text"]) - 1 if state["chosen"] is None else state["chosen"]


def appended(state, before):
    """The characters typed at the end since `before` (a state), or None if the text changed otherwise."""
    old, new = before["text"], state["text"]
    return new[len(old):] if len(new) > len(old) and new.startswith(old) and state["off"] == before["off"] else None


def read(state):
    """The Reading of the state's text with its heads off (all at once; the page reads in steps)."""
    return mha.text.read(model(), state["text"], sorted(state["off"]))


# --- trees --------------------------------------------------------------------------------------

def reads(reading):
    """fig-text-reads: the characters the model reads, and under each its guess for the next one."""
    text, guesses = reading.text, reading.guess
    chars = [["td", {"title": f"character {i}: {c!r}"}, shown(c)] for i, c in enumerate(text)] + [["td", {}, ""]]
    right = lesson.right_guesses(reading)
    guess_cells = [["td", {}, ""]] + [
        ["td", {**classes("guess", "hit" if ok else ""),
                "title": f"guess for character {i + 1}: {g!r}, p = {p:.4f}" + (", right" if ok else "")},
         shown(g)] for i, (g, p, ok) in enumerate(zip(guesses, reading.probability, right))]
    hits = sum(right)
    caption = (f"It reads {len(text)} of {model().context} characters; under each, its guess for it from the "
               f"characters before, outlined where the text agrees ({hits} of {len(text) - 1}).")
    return [["p", {"class": "note"}, caption],
            ["table", {"class": "text-reads", "aria-label": "what the model reads, and its guesses"},
             ["tbody", {}, ["tr", {"aria-label": "reads"}, *chars], ["tr", {"aria-label": "guesses next"},
                                                                      *guess_cells]]]]


def switches(off):
    """fig-text-switches: one checkbox per head, checked when it is off."""
    boxes = [["label", {"class": "control" + (" off" if (layer, head) in off else "")},
              ["input", {"type": "checkbox", "id": f"text-off-{layer}-{head}", "data-text-head": f"{layer}.{head}",
                         "checked": (layer, head) in off}], " ", head_label(layer, head)]
             for layer, head in names()]
    return [["fieldset", {"class": "train-switches text-switches"}, ["legend", {}, "Switch off"], *boxes]]


def head_map(rows, text, label, row, off):
    """<svg> of one head's weights on the text (heatmap.heat_map): row i the query at i, column j the key at j,
    the chosen row's cells readable (each a focusable <rect> naming its weight); a click's height picks the row
    (app/text.py)."""
    letters = [shown(c) for c in text]
    said = f"{label}{' (off)' if off else ''}"
    return heat_map(rows, letters, letters, f"{label}{', switched off' if off else ''}: its weights on your text, "
                                            f"row {row} readable",
                    readable=(row,), tab=(row, row), extra=("text-map", "off" if off else ""),
                    describe=lambda i, j: f"{said}: query {i} {text[i]!r} on key {j} {text[j]!r}: {rows[i][j]:.4f}")


def row_at(y):
    """The map's row under a point y pixels below its top (None in the margin): what a click picks."""
    return None if y < MARGIN else int((y - MARGIN) // CELL)


def maps(reading, state):
    """fig-text-maps: one captioned map per head (an off head drawn faded, its caption says so), and the readout."""
    row = chosen(state)
    text = reading.text
    figures = []
    for layer, head in names():
        rows = reading.weights[layer][head]
        off = (layer, head) in state["off"]
        label = head_label(layer, head)
        top = lesson.top_key(rows, row)
        figures.append(["figure", classes("train-head", "text-head", "off" if off else ""),
                        head_map(rows, text, label, row, off),
                        ["figcaption", {}, f"{label}{' (off, adds nothing)' if off else ''}: row {row} (",
                         ["kbd", {}, shown(text[row])], ") puts most on ", ["kbd", {}, shown(text[top])],
                         f" at {top}, {share_text(rows[row][top])}."]])
    top = reading.distribution(row, 3)
    return [["div", {"class": "train-heads text-heads"}, *figures],
            ["p", {"class": "note train-readout", "aria-live": "polite"},
             "Point at a cell of the outlined row, or tab to it and use the arrow keys, for its exact weight; "
             "click a row, or use the slider, to outline another."],
            ["p", {"class": "note"}, f"After {row} (", ["kbd", {}, shown(text[row])], ") it expects ",
             *[part for k, (c, p) in enumerate(top) for part in ([", "] if k else []) + [["kbd", {}, shown(c)],
                                                                                   f" ({share_text(p)})"]], "."]]


def chance_pair(a, b):
    """Two probabilities said side by side: page.dom.apart's digits (2, more where 2 would print them alike), or
    share_text each where one is under 0.01."""
    return apart(a, b) if min(a, b) >= 0.01 else (share_text(a), share_text(b))


def shown_text(text):
    """A prompt as the page draws it: its spaces and newlines visible (SHOWN)."""
    return "".join(shown(c) for c in text)


def outcome(trial, found):
    """What the model's guesses write after the prompt, and each end's probability (all its characters, in turn).

    One end tested: 'it writes 2xm (p = 0.57 over its 3 characters)' or 'it does not write 2xm (...)'.
    Two: 'it writes 2xm, the earlier copy's end (p = 0.29 for 2xm, 0.07 for 3yn)' or 'it writes neither end'."""
    ends = list(trial.probabilities)
    if len(ends) == 1:
        end = ends[0]
        written = f"it writes {end}" if trial.copied else f"it does not write {end}"
        count = f"{len(end)} character" + ("s" if len(end) > 1 else "")
        return f"{written} (p = {share_text(trial.probabilities[end])} over its {count})"
    named = {found.end: "the earlier copy's end", found.near_end: "the near-duplicate's end"}
    written = f"it writes {trial.copied}, {named[trial.copied]}" if trial.copied else "it writes neither end"
    first, second = chance_pair(trial.probabilities[found.end], trial.probabilities[found.near_end])
    return f"{written} (p = {first} for {found.end}, {second} for {found.near_end})"


NEAR_KINDS = {"one": "As written", "exact": "An exact copy added", "near": "A near-duplicate added",
              "yours": "Your near-duplicate, as written"}


def near_story(trials, found, kinds):
    """fig-text-near: one line per prompt (near_duplicate_prompts' kinds), the prompt shown whole."""
    return [["p", {}, f"{NEAR_KINDS[kind]}, ", ["kbd", {}, shown_text(trial.prompt)], ": ", outcome(trial, found), "."]
            for kind, trial in zip(kinds, trials)]


def moved_story(trials, found, distance):
    """fig-text-moved: the prompt as written, against the earlier copy's line moved back, filler after it."""
    here, back = trials
    return [["p", {}, f"As written, its earlier copy {found.last - found.first} characters back, ",
             ["kbd", {}, shown_text(here.prompt)], ": ", outcome(here, found), "."],
            ["p", {}, f"Moved {distance} characters back, its line kept whole, filler after it, ",
             ["kbd", {}, shown_text(back.prompt)], ": ", outcome(back, found), "."]]


def refused(sentence):
    return [["p", {"class": "note"}, sentence]]


def experiments(state):
    """{element id: (prompts and continuations, story)}: what app/text.py runs in steps for each experiment,
    or {element id: sentence} where the text has none to run."""
    text, context = state["text"], model().context
    found = lesson.find_id(text)
    plans = {}
    try:
        kinds, prompts = zip(*lesson.near_duplicate_prompts(text, context))
        ends = [found.end, found.near_end]
        plans["fig-text-near"] = ([(prompt, ends if kind in ("near", "yours") else ends[:1])
                                   for kind, prompt in zip(kinds, prompts)],
                                  functools.partial(near_story, found=found, kinds=kinds))
    except ValueError as error:
        plans["fig-text-near"] = str(error)
    try:
        here, back, distance = lesson.moved_back_prompts(text, context)
        plans["fig-text-moved"] = ([(here, [found.end]), (back, [found.end])],
                                   functools.partial(moved_story, found=found, distance=distance))
    except ValueError as error:
        plans["fig-text-moved"] = str(error)
    return plans


run_steps = lesson.run_steps  # a generator's return value, run to its end (the build and the tests, without yielding)


def experiment_trees(state):
    """Each experiment's trees, computed at once (the build, the tests; the page runs the same steps in chunks)."""
    trees = {}
    for element_id, plan in experiments(state).items():
        if isinstance(plan, str):
            trees[element_id] = refused(plan)
            continue
        runs, story = plan
        trials = [run_steps(lesson.trial_steps(model(), prompt, ends, sorted(state["off"]))) for prompt, ends in runs]
        trees[element_id] = story(trials)
    return trees


# --- build time -----------------------------------------------------------------------------------

@functools.cache
def _default_reading():
    return read(default_state())


@functools.cache
def _default_experiments():
    return experiment_trees(default_state())


# --- the model's card: what it is and what was measured, from model.about and model.measurements ----------

UNMEASURED = "not yet measured"  # printed in place of a measurement while model.json carries none


def measured():
    return model().measurements


def measurement(read):
    """read(measurements) as text, or UNMEASURED while the shipped model carries no measurements."""
    return read(measured()) if measured() else UNMEASURED


def copy_without(name):
    """The copy accuracies with `name` alone switched off (the measurements' copy_off entry)."""
    return next(row for row in measured()["copy_off"] if [tuple(p) for p in row["off"]] == [tuple(name)])


def card():
    """fig-text-card: per head, its two scores and the copy accuracy with it alone off; the bits per character."""
    m = measured()
    if not m:
        return [["p", {"class": "note"}, f"Its heads are {UNMEASURED}: scripts/train_text_model.py measures them "
                                         f"when it writes the weights."]]
    rows = []
    for score in m["scores"]:
        name = (score["layer"], score["head"])
        without = copy_without(name)
        rows.append(["tr", {}, ["th", {"scope": "row", "class": "nowrap"}, head_label(*name)],
                     ["td", {"class": "num"}, f"{score['previous_token']:.2f}"],
                     ["td", {"class": "num"}, f"{score['induction']:.2f}"],
                     ["td", {"class": "num"}, percent(without["unseen"])]])
    head = ["tr", {}, *[["th", {"scope": "col"}, t] for t in
                        ("head", "previous-token", "induction", "copying, it off")]]
    every = m["copy"]
    caption = (f"Scores measured on repeated random strings; copying on unseen prompt forms, "
               f"{percent(every['unseen'])} with every head on (chance {percent(m['chance'])}). Where copying rises "
               f"with a head off, that is measured, not explained.")
    return [["table", {"class": "figure-table train-scores-table", "aria-label": "the text model's heads, measured"},
             ["caption", {}, caption], ["thead", {}, head], ["tbody", {}, *rows]], *composition(m)]


def composition(m):
    """The sentence on composition: the later layer's induction scores with the previous-token heads off."""
    previous, rows = m["heads"]["previous_token_heads"], m["composition"]
    if not previous or not rows:
        return []
    named = " and ".join(head_label(*name) for name in previous)
    scores = {(r["layer"], r["head"]): r for r in m["scores"]}
    falls = ", ".join(f"{head_label(r['layer'], r['head'])}'s from {scores[r['layer'], r['head']]['induction']:.2f} "
                      f"to {r['induction']:.2f}" for r in rows)
    return [["p", {"class": "note"}, f"With {named} (its previous-token head) off, the induction scores fall: {falls}."]]


def minutes(seconds):
    return f"{seconds / 60:.1f} minutes" if seconds >= 90 else f"{seconds:.1f} seconds"


def bits_verdict():
    """How its bits per character compare with the bigram's, in words: the page says how weak a model it is."""
    if not measured():
        return UNMEASURED
    bits = measured()["bits_per_character"]
    model_bits, bigram = bits["model"], bits["bigram"]
    if model_bits >= bigram:
        return f"{model_bits:.2f} bits per character, worse than a bigram table's {bigram:.2f}"
    return f"{model_bits:.2f} bits per character to a bigram table's {bigram:.2f}: only {bigram - model_bits:.2f} better"


def _near_pair():
    found = lesson.find_id(lesson.DEFAULT_PROMPT)
    return f"{found.text} {found.near}"


@functools.cache
def default_trials():
    """The near-duplicate experiment's trials on the default text, by kind ('one', 'exact', 'near')."""
    runs, _ = experiments(default_state())["fig-text-near"]
    kinds = [kind for kind, _ in lesson.near_duplicate_prompts(lesson.DEFAULT_PROMPT, model().context)]
    return {kind: run_steps(lesson.trial_steps(model(), prompt, ends)) for kind, (prompt, ends) in zip(kinds, runs)}


def default_exact():
    """The exact-repeat prompt on the default text: the probability of the id's own end."""
    return default_trials()["exact"].probabilities[lesson.find_id(lesson.DEFAULT_PROMPT).end]


def default_near():
    """The near-duplicate experiment on the default text, as section 10 cites it: (p of the id's end, of the near end)."""
    found = lesson.find_id(lesson.DEFAULT_PROMPT)
    trial = default_trials()["near"]
    return trial.probabilities[found.end], trial.probabilities[found.near_end]


@functools.cache
def typical():
    """mha.text_lesson.typical over its fixed random ids (build time only: the page ships the numbers)."""
    return lesson.typical(model())


PROSE = {
    "text-default": lambda: lesson.DEFAULT_PROMPT,
    "text-last": lambda: str(len(lesson.DEFAULT_PROMPT) - 1),
    "text-context": lambda: str(model().context),
    "text-vocab": lambda: str(len(model().vocab)),
    "text-shape": lambda: f"{model().layers} layers of {model().heads} heads, width {model().width}",
    "text-params": lambda: f"{model().about['parameters']:,}",
    # CPU time, not wall time: the same run took 354 s beside other work and 1,386 s beside two more trainings
    "text-minutes": lambda: f"{minutes(model().about['training_cpu_seconds'])} of one core's time",
    "text-seed": lambda: str(model().about["seed"]),
    "text-steps": lambda: f"{model().about['steps']:,}",
    "text-copy-trained": lambda: measurement(lambda m: percent(m["copy"]["trained"])),
    "text-copy-unseen": lambda: measurement(lambda m: percent(m["copy"]["unseen"])),
    "text-chance": lambda: percent(lesson.chance(model())),
    "text-bits": bits_verdict,
    "text-near-pair": lambda: ["kbd", {}, _near_pair()],
    "text-exact-id": lambda: f"{default_exact():.2f}",
    "text-near-id": lambda: f"{default_near()[0]:.2f}",
    "text-near-other": lambda: f"{default_near()[1]:.2f}",
    "text-one-id": lambda: f"{default_trials()['one'].probabilities[lesson.find_id(lesson.DEFAULT_PROMPT).end]:.2f}",
    "text-typical-count": lambda: str(typical().count),
    "text-one-median": lambda: f"{typical().one:.2f}",
    "text-exact-median": lambda: f"{typical().exact:.2f}",
    "text-near-median": lambda: f"{typical().near:.2f}",
    "text-near-own": lambda: str(typical().writes_own),
    "text-near-others": lambda: str(typical().writes_other),
}

FIGURES = {
    "fig-text-reads": Figure(lambda s, v, b: reads(_default_reading())),
    "fig-text-switches": Figure(lambda s, v, b: switches(frozenset())),
    "fig-text-maps": Figure(lambda s, v, b: maps(_default_reading(), default_state())),
    "fig-text-near": Figure(lambda s, v, b: _default_experiments()["fig-text-near"]),
    "fig-text-moved": Figure(lambda s, v, b: _default_experiments()["fig-text-moved"]),
    "fig-text-card": Figure(lambda s, v, b: card()),
}
