"""The text model's section ("Heads on your own prompt"): its state, its pure transitions, and its trees.

The model is mha.text's, trained by scripts/train_text_model.py and shipped in mha; every number here
comes from mha.text (read, extend, the model's measurements) or mha.text_lesson (the experiments).
This module arranges them; app/text.py reads the field, calls these and draws.

    state = {"seed": which shipped model (mha.text.SEEDS), "text": the text the model reads (parsed: lower case),
             "off": frozenset of (layer, head), "chosen": the query position whose weights are printed (None: the last)}

- fig-text-reads: what the model reads, one character a cell, and its guess for the next one under each
  (outlined where the text's next character matches it).
- fig-text-seeds: one radio button per shipped seed. fig-text-switches: one checkbox per head.
- fig-text-maps: each head's weights (characters on both axes while the text is short enough for 10 px cells),
  the chosen row outlined and its cells readable (hover, or focus and the arrow keys: app/text.py writes them into
  the readout).
- fig-text-near: the near-duplicate experiment's sentences. fig-text-card: the chosen seed's heads, measured.
- fig-text-roles: which head holds which role in each seed; fig-text-apart: each seed's double dissociation.
- fig-text-competition (section 10): the id's probability as near-duplicates crowd in, from the measurements.
- PROSE: the model's size, data, training and measurements, for the section's <!--value:KEY--> marks.
"""

import functools
import math
from typing import NamedTuple

import mha.text
import mha.text_lesson as lesson
from figures.heatmap import CELL, MARGIN, Runs, heat_map  # a map's cell and margin in CSS px (row_at reads them)
from figures.registry import Figure
from figures.training import head_label, percent  # section 8's names and percentages, one way
from page.dom import apart, beside, classes, listed, share_text

MAP_SIDE, SMALLEST = 340, 2  # a long text's map: cells shrunk to fit about MAP_SIDE px, never below SMALLEST px
SHOWN = {"\n": "\u21b5", " ": "\u2423"}  # how a newline and a space are drawn in a cell


@functools.cache
def model(seed=mha.text.DEFAULT_SEED):
    return mha.text.load(seed)


def names():
    """[(layer, head), ...] in layer order: the order of a Reading's heads and of the switches (every seed's)."""
    return model().names


def shown(c):
    return SHOWN.get(c, c)


# --- state and transitions ------------------------------------------------------------------

def default_state():
    return {"seed": mha.text.DEFAULT_SEED, "text": lesson.DEFAULT_PROMPT, "off": frozenset(), "chosen": None}


def with_seed(state, seed):
    """Another shipped model (mha.text.parse_seed: ValueError for a seed with none); text, heads off and row kept."""
    return {**state, "seed": mha.text.parse_seed(seed)}


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
    same = state["off"] == before["off"] and state["seed"] == before["seed"]
    return new[len(old):] if len(new) > len(old) and new.startswith(old) and same else None


def read(state):
    """The Reading of the state's text with its heads off (all at once; the page reads in steps)."""
    return mha.text.read(model(state["seed"]), state["text"], sorted(state["off"]))


# --- trees --------------------------------------------------------------------------------------

def read_cells(reading, before=None):
    """fig-text-reads' cells, one (character's <td>, guess's <td>) a position: the character, and the model's guess
    for the next one, outlined where the text's next character agrees. before: the cells of a Reading this one
    extends (mha.text.extend), kept but for its last (whose guess had no next character to agree with)."""
    text, kept = reading.text, list(before[:-1]) if before else []
    start = len(kept)
    for i, ok in enumerate(lesson.right_guesses(reading, start), start):
        g, p = reading.guess_at(i)
        kept.append((["td", {"title": f"character {i}: {text[i]!r}"}, shown(text[i])],
                     ["td", {**classes("guess", "hit" if ok else ""),
                             "title": f"guess for character {i + 1}: {g!r}, p = {p:.4f}" + (", right" if ok else "")},
                      shown(g)]))
    return kept


def reads(reading, cells=None):
    """fig-text-reads: the characters the model reads, and under each its guess for the next one (cells:
    read_cells(reading), if kept)."""
    cells = cells or read_cells(reading)
    hits = sum(1 for _, guess in cells if "hit" in guess[1].get("class", ""))
    caption = f"Under each character, the guess for it; outlined where right ({hits} of {len(reading.text) - 1})."
    return [["p", {"class": "note"}, caption],
            ["table", {"class": "text-reads", "aria-label": "what the model reads, and its guesses"},
             ["tbody", {}, ["tr", {"aria-label": "reads"}, *[char for char, _ in cells], ["td", {}, ""]],
              ["tr", {"aria-label": "guesses next"}, ["td", {}, ""], *[guess for _, guess in cells]]]]]


def seed_picker(seed):
    """fig-text-seeds: one radio button per shipped seed, the chosen one checked."""
    buttons = [["label", {"class": "control"},
                ["input", {"type": "radio", "name": "text-seed", "id": f"text-seed-{s}", "value": str(s),
                           "data-text-seed": str(s), "checked": s == seed}], f" seed {s}"]
               for s in mha.text.SEEDS]
    return [["fieldset", {"class": "train-switches text-seeds"}, ["legend", {}, "Model"], *buttons]]


def switches(off):
    """fig-text-switches: one checkbox per head, checked when it is off."""
    boxes = [["label", {"class": "control" + (" off" if (layer, head) in off else "")},
              ["input", {"type": "checkbox", "id": f"text-off-{layer}-{head}", "data-text-head": f"{layer}.{head}",
                         "checked": (layer, head) in off}], " ", head_label(layer, head)]
             for layer, head in names()]
    return [["fieldset", {"class": "train-switches text-switches"}, ["legend", {}, "Switch off"], *boxes]]


def geometry(n):
    """(cell, margin) in px of a map of a text of n characters: CELL and MARGIN (room for the axis letters) while
    n cells fit MAP_SIDE px, else a smaller cell and a 2 px margin (no letters)."""
    return (CELL, MARGIN) if n * CELL <= MAP_SIDE else (max(SMALLEST, MAP_SIDE // n), 2)


def describe(label, off, text, rows, i, j):
    """The readout's sentence for cell (i, j) of a head's map: its query, its key and its weight to 4 decimals."""
    return f"{label}{' (off)' if off else ''}: query {i} {text[i]!r} on key {j} {text[j]!r}: {rows[i][j]:.4f}"


def readout(reading, state, name, i, j):
    """describe's sentence for cell (i, j) of head name's map of the Reading, as the state switches it."""
    return describe(head_label(*name), name in state["off"], reading.text, reading.weights[name[0]][name[1]], i, j)


def head_map(rows, text, label, row, off, key=None, runs=None):
    """<svg> of one head's weights on the text (heatmap.heat_map): row i the query at i, column j the key at j,
    the chosen row outlined and one of its cells readable (key, else the diagonal's): a focusable <rect> naming its
    weight, moved by the arrow keys (app/text.py); a click's height picks the row. Its data-weights: the chosen row's
    weights as the readout prints them. The axes carry the text's characters while its cells are CELL px
    (geometry); a longer text's cells are smaller and its characters are in fig-text-reads. runs: map_runs's."""
    cell, margin = geometry(len(text))
    letters = [["tspan", {"class": "blank"}, shown(c)] if c in SHOWN else c for c in text] if cell >= CELL else []
    svg = heat_map(rows, letters, letters, f"{label}{', switched off' if off else ''}: its weights on your text, "
                                           f"row {row} outlined",
                   cell=cell, margin=margin, cursor=(row, row if key is None else min(key, row)), runs=runs,
                   extra=("text-map", "off" if off else ""),
                   describe=lambda i, j: describe(label, off, text, rows, i, j))
    svg[1]["data-weights"] = " ".join(("%.4f",) * (row + 1)) % tuple(rows[row][:row + 1])  # as f"{w:.4f}", sooner
    return svg


def row_at(y, n):
    """The row under a point y pixels below the top of a map of n characters (None in the margin): what a click
    picks."""
    cell, margin = geometry(n)
    return None if y < margin else int((y - margin) // cell)


def cell_at(x, y, n):
    """(row, key) of the drawn cell under the point (x, y) px from a map's top left corner, or None (the margin,
    above the diagonal, beyond the map)."""
    cell, margin = geometry(n)
    if x < margin or y < margin:
        return None
    i, j = int((y - margin) // cell), int((x - margin) // cell)
    return (i, j) if j <= i < n else None


def map_runs(reading, before=None):
    """{(layer, head): heatmap.Runs} of the Reading's maps. before: the runs of a Reading this one extends
    (mha.text.extend: its rows are unchanged), so only the new rows are computed."""
    return {name: (before[name] if before else Runs()).grown(reading.weights[name[0]][name[1]]) for name in names()}


HINT = "Point at or tab to a cell for its weight; click a row or use the slider to move the outline."  # the readout's


def maps(reading, state, key=None, runs=None):
    """fig-text-maps: one captioned map per head (an off head drawn faded, its caption says so), and the readout.
    key: the key of the chosen row's readable cell (None: the diagonal); runs: map_runs(reading), if kept."""
    row = chosen(state)
    text = reading.text
    runs = runs or map_runs(reading)
    wrote_most = mha.text.top_writes(model(state["seed"]), reading, row)
    figures = []
    for layer, head in names():
        rows = reading.weights[layer][head]
        off = (layer, head) in state["off"]
        label = head_label(layer, head)
        top = lesson.top_key(rows, row)
        wrote = wrote_most[layer, head]
        writes = ([] if wrote is None else [", writes ", ["kbd", {}, shown(wrote[0])], f" ({wrote[1]:+.2f})"])
        figures.append(["figure", classes("train-head", "text-head", "off" if off else ""),
                        head_map(rows, text, label, row, off, key, runs[layer, head]),
                        ["figcaption", {}, f"{label}{' (off, adds nothing)' if off else ''}: reads ",
                         ["kbd", {}, shown(text[top])], f" at {top} ({share_text(rows[row][top])})", *writes, "."]])
    top = reading.distribution(row, 3)
    return [["p", {"class": "note"}, f"The captions read row {row} (", ["kbd", {}, shown(text[row])],
             "), outlined; after it the model expects ",
             *[part for k, (c, p) in enumerate(top) for part in ([", "] if k else []) + [["kbd", {}, shown(c)],
                                                                                   f" ({said(p)})"]], "."],
            ["div", {"class": "train-heads text-heads"}, *figures],
            ["p", {"class": "note train-readout", "aria-live": "polite"},
             HINT]]


LEAST = 0.001  # a probability under this is said as "under 0.001": 0.0000017 beside 0.82 is read by counting zeros


def said(p):
    """A probability as section 9's sentences say it: page.dom.share_text's digits, or 'under 0.001'."""
    return share_text(p) if p >= LEAST else f"under {LEAST}"


def p_is(printed):
    """'p = 0.39', or 'p under 0.001' (not 'p = under')."""
    return f"p {printed}" if printed.startswith("under") else f"p = {printed}"


def chance_pair(a, b):
    """Two probabilities said side by side: page.dom.apart's digits (2, more where 2 would print them alike), or
    said each where one is under 0.01."""
    return apart(a, b) if min(a, b) >= 0.01 else (said(a), said(b))


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
        return f"{written} ({p_is(said(trial.probabilities[end]))} over its {count})"
    named = {found.end: "the earlier copy's end", found.near_end: "the near-duplicate's end"}
    written = f"it writes {trial.copied}, {named[trial.copied]}" if trial.copied else "it writes neither end"
    first, second = chance_pair(trial.probabilities[found.end], trial.probabilities[found.near_end])
    return f"{written} ({p_is(first)} for {found.end}, {second} for {found.near_end})"


NEAR_KINDS = {"one": "As written", "exact": "An exact copy added", "near": "A near-duplicate added",
              "yours": "Your near-duplicate, as written"}


def near_story(trials, found, kinds):
    """fig-text-near: one line per prompt (near_duplicate_prompts' kinds), the prompt shown whole."""
    return [["p", {}, f"{NEAR_KINDS[kind]}, ", ["kbd", {}, shown_text(trial.prompt)], ": ", outcome(trial, found), "."]
            for kind, trial in zip(kinds, trials)]


def room(text, readable=True):
    """#text-room, beside the field: how much of the context the text takes and, if the model can read it and it
    has an id, its experiment's longest prompt."""
    context = model().context
    said = f"{len(text):,} of {context} characters"
    found = lesson.find_id(text) if readable else None
    if found is None or found.written:  # no id, or the reader's near-duplicate: its prompt is the text's own
        return f"{said}."
    return f"{said}; the experiment adds a space and a second {found.text}: {found.needs}."


def tail_offer(typed):
    """The tail button's label for a paste over the context ('': none)."""
    context = model().context
    return f"Read its last {context} characters" if len(typed) > context else ""


def refused(sentence):
    return [["p", {"class": "note"}, sentence]]


class Plan(NamedTuple):
    """An experiment to run on a text: each prompt with its continuations, and the id and prompt kinds its story
    names them by. Two equal plans (with one model and the same heads off) draw the same experiment."""

    runs: list    # [(prompt, [continuation, ...]), ...]
    found: tuple  # lesson.Id
    kinds: tuple  # near_duplicate_prompts' kinds, one a prompt

    def story(self, trials):
        return near_story(trials, self.found, self.kinds)


def experiments(state):
    """{element id: Plan}: what app/text.py runs in steps for each experiment, or {element id: sentence} where the
    text has none to run."""
    text, context = state["text"], model().context
    found = lesson.find_id(text)
    plans = {}
    try:
        kinds, prompts = zip(*lesson.near_duplicate_prompts(text, context))
        ends = [found.end, found.near_end]
        plans["fig-text-near"] = Plan([(prompt, ends if kind in ("near", "yours") else ends[:1])
                                       for kind, prompt in zip(kinds, prompts)], found, kinds)
    except ValueError as error:
        plans["fig-text-near"] = str(error)
    return plans


def experiment_inputs(state, plans):
    """What the experiments drawn from plans (experiments(state)) are made of: the model, the heads off and the
    plans. Two states with equal inputs draw the same experiments: a character typed after an id mostly leaves
    them as they were (app/text.py then runs none)."""
    return state["seed"], state["off"], plans


run_steps = lesson.run_steps  # a generator's return value, run to its end (the build and the tests, without yielding)


def experiment_trees(state):
    """Each experiment's trees, computed at once (the build, the tests; the page runs the same steps in chunks)."""
    trees = {}
    for element_id, plan in experiments(state).items():
        if isinstance(plan, str):
            trees[element_id] = refused(plan)
            continue
        trials = [run_steps(lesson.trial_steps(model(state["seed"]), prompt, ends, sorted(state["off"])))
                  for prompt, ends in plan.runs]
        trees[element_id] = plan.story(trials)
    return trees


# --- build time -----------------------------------------------------------------------------------

@functools.cache
def _default_reading():
    return read(default_state())


@functools.cache
def _default_experiments():
    return experiment_trees(default_state())


# --- the models' cards: what each is and what was measured, from model.about and model.measurements ----------

PROBE_NAMES = {"previous_token": "previous character", "same_character": "same character",
               "word_start": "start of the word", "bracket": "open quote or bracket", "induction": "induction"}
TASK_NAMES = {"unseen": "copying", "close": "closing"}


def measured(seed=mha.text.DEFAULT_SEED):
    return model(seed).measurements


def role_score(x):
    """A probe's score as the card prints it: 2 decimals, more where 2 would put it on the other side of ROLE_MIN
    (0.0975 is not '0.10': it does not reach the line), as section 8 prints its scores beside their lines."""
    return beside(x, mha.text.ROLE_MIN, gap=True)


def role_text(role):
    return PROBE_NAMES[role] if role else "none"


def cost(seed, name, task):
    """What switching `name` (a (layer, head)) alone off costs `task` in the seed's measurements (mha.text.cost)."""
    return mha.text.cost(measured(seed)["tasks"], [name], task)


def card(seed):
    """fig-text-card: per head of the chosen seed, each probe's score (its role's in bold: fig-text-roles says
    it in words), and what switching it off costs each task."""
    m = measured(seed)
    rows = []
    for score, (layer, head, role) in zip(m["scores"], m["roles"]):
        cells = [["td", {"class": "num"}, ["strong", {}, role_score(score[probe])] if probe == role else
                  role_score(score[probe])] for probe in mha.text.PROBES]
        costs = [["td", {"class": "num"}, f"{cost(seed, (layer, head), task):.0%}"] for task in TASK_NAMES]
        rows.append(["tr", {}, ["th", {"scope": "row", "class": "nowrap"}, head_label(layer, head)], *cells, *costs])
    head = ["tr", {}, *[["th", {"scope": "col"}, t] for t in
                        ("head", *PROBE_NAMES.values(), *(f"{t}, cost of it off" for t in TASK_NAMES.values()))]]
    everything = m["tasks"][0]
    even = ", ".join(f"{m['even'][p]:.3f}" for p in mha.text.PROBES)  # 3 digits: a reader checks the ratios
    caption = (f"Seed {seed}: each score is the weight a head puts where the score says (held-out docstrings; "
               f"induction on repeated random strings; weights spread evenly would score {even}); in bold, the "
               f"head's role. With every head on it gets {percent(everything['unseen'])} of an id's characters right "
               f"and gives a closing quote or bracket p = {everything['close']:.2f} on average; a cost is the share "
               f"of that lost with the head off (below 0: no cost).")
    return [["table", {"class": "figure-table train-scores-table", "aria-label": f"seed {seed}'s heads, measured"},
             ["caption", {}, caption], ["thead", {}, head], ["tbody", {}, *rows]]]


def roles_table():
    """fig-text-roles: for each head, its role (and that probe's score) in each seed: the same recipe, the roles
    on other heads."""
    head = ["tr", {}, ["th", {"scope": "col"}, "head"], *[["th", {"scope": "col"}, f"seed {s}"] for s in mha.text.SEEDS]]
    rows = []
    for index, (layer, head_index) in enumerate(names()):
        cells = []
        for seed in mha.text.SEEDS:
            role = measured(seed)["roles"][index][2]
            score = measured(seed)["scores"][index][role] if role else None
            cells.append(["td", {}, role_text(role) + (f" {role_score(score)}" if role else "")])
        rows.append(["tr", {}, ["th", {"scope": "row", "class": "nowrap"}, head_label(layer, head_index)], *cells])
    return [["table", {"class": "figure-table text-roles-table", "aria-label": "each head's role in each seed"},
             ["caption", {}, "Each head's role in each seed, with that probe's score."],
             ["thead", {}, head], ["tbody", {}, *rows]]]


def apart_sentence(seed):
    """One seed's double dissociation, in words, or that it has none (mha.text.dissociation's rule)."""
    found = measured(seed)["dissociation"]
    if not found:
        return (f"Seed {seed}: no double dissociation: no head's switch costs copying half and closing under a "
                f"tenth while another's does the reverse.")
    a, b = (head_label(*found[k]) for k in ("copy_head", "close_head"))
    (a_copy, a_close), (b_copy, b_close) = found["copy_costs"], found["close_costs"]
    return (f"Seed {seed}: {a} off costs copying {a_copy:.0%} and closing {a_close:.0%}; {b} off costs closing "
            f"{b_close:.0%} and copying {b_copy:.0%}.")


def moving_role():
    """A role that every seed has but on different heads (the first of PREFERRED), or None: what the roles
    sentence rests on. The roles table shows where it sits."""
    for role in PREFERRED:
        by_seed = [tuple((layer, head) for layer, head, r in measured(seed)["roles"] if r == role)
                   for seed in mha.text.SEEDS]
        if all(by_seed) and len(set(by_seed)) > 1:
            return role
    return None


PREFERRED = ("induction", "previous_token", "word_start", "bracket", "same_character")  # which move moving_role() names


def dissociations():
    """fig-text-apart: each seed's double dissociation, one line each; one line if no seed has one."""
    if not any(measured(seed)["dissociation"] for seed in mha.text.SEEDS):
        copiers = [(seed, name) for seed in mha.text.SEEDS for name in names()
                   if cost(seed, name, "unseen") >= mha.text.HALF]
        least = min((cost(seed, name, "close") for seed, name in copiers), default=0)
        previous = all(list(name) in measured(seed)["previous_token_heads"] for seed, name in copiers)
        if copiers and previous and least >= mha.text.LITTLE:
            return [["p", {"class": "note"}, f"{DISSOCIATION} No seed has one: each head whose switch halves copying "
                                             f"is a layer-0 previous-character head, and costs closing {least:.0%} or "
                                             f"more."]]
        return [["p", {"class": "note"}, f"{DISSOCIATION} No seed has one."]]
    return [["p", {"class": "note"}, DISSOCIATION],
            ["ul", {"class": "note"}, *[["li", {}, apart_sentence(seed)] for seed in mha.text.SEEDS]]]


DISSOCIATION = ("A double dissociation would show two jobs apart: one head whose switch halves copying an id but "
                "costs closing a quote or bracket under a tenth, another the reverse.")


# --- section 10: the competition on the text model ------------------------------------------------------

# fig-text-competition's px, drawn at 1:1 (11 px letters): 286 fits the list item it sits in on a 375 px phone
PLOT = {"width": 286, "height": 220, "left": 44, "right": 90, "top": 12, "bottom": 38}
DECADES = (0, -1, -2, -3, -4)  # the plot's p axis: 1 down to 0.0001, on a log scale
KIND_NAMES = {"near": "near-duplicates", "unrelated": "unrelated ids"}


def competition_plot():
    """fig-text-competition: the median p of the id's end (log scale) against the chunks between id and reply,
    near-duplicates (solid) and unrelated ids (dashed), one pair of lines per seed, from the measurements
    (mha.text_lesson.competition); its numbers in a table beside it."""
    w, h = PLOT["width"], PLOT["height"]
    chunks = measured()["competition"]["chunks"]
    x0, x1, y0, y1 = PLOT["left"], w - PLOT["right"], h - PLOT["bottom"], PLOT["top"]

    def x(k):
        return round(x0 + (x1 - x0) * chunks.index(k) / (len(chunks) - 1), 1)

    def y(p):
        decade = min(max(math.log10(p), DECADES[-1]), 0)
        return round(y1 + (y0 - y1) * decade / DECADES[-1], 1)
    parts = [["line", {"x1": x0, "y1": y0, "x2": x1, "y2": y0, "class": "axis-line"}],
             ["line", {"x1": x0, "y1": y0, "x2": x0, "y2": y1, "class": "axis-line"}]]
    for d in DECADES:
        parts.append(["text", {"x": x0 - 6, "y": y(10 ** d) + 4, "class": "tick", "text-anchor": "end"},
                      f"{10 ** d:g}"])
    for k in chunks:
        parts.append(["text", {"x": x(k), "y": y0 + 16, "class": "tick", "text-anchor": "middle"}, str(k)])
    parts.append(["text", {"x": (x0 + x1) / 2, "y": h - 4, "class": "axis-title", "text-anchor": "middle"},
                  "chunks between id and reply"])
    for seed in mha.text.SEEDS:
        found = measured(seed)["competition"]
        for kind in KIND_NAMES:
            points = " ".join(f"{x(k)},{y(p)}" for k, p in zip(chunks, found[kind]))
            parts.append(["polyline", {"points": points, "class": f"text-line {kind}", "data-seed": str(seed)}])
    for kind, name in KIND_NAMES.items():
        ends = [y(measured(seed)["competition"][kind][-1]) for seed in mha.text.SEEDS]
        parts.append(["text", {"x": x1 + 6, "y": round(sum(ends) / len(ends) + 4, 1), "class": f"line-name {kind}"},
                      name])
    rows = [["tr", {}, ["th", {"scope": "row"}, f"seed {seed}, {KIND_NAMES[kind]}"],
             *[["td", {"class": "num"}, share_text(p)] for p in measured(seed)["competition"][kind]]]
            for seed in mha.text.SEEDS for kind in KIND_NAMES]
    table = ["table", {"class": "figure-table", "aria-label": "the plot's numbers"},
             ["caption", {}, "Median p of the id's end, by chunks between"],
             ["thead", {}, ["tr", {}, ["th", {"scope": "col"}, "chunks"],
                           *[["th", {"scope": "col"}, str(k)] for k in chunks]]], ["tbody", {}, *rows]]
    return [["svg", {"viewBox": f"0 0 {w} {h}", "width": w, "class": "text-competition", "role": "img",
                     "aria-label": "median p of the id's end, log scale, against the chunks between, for each seed: "
                                   "solid, near-duplicates; dashed, unrelated ids"}, *parts],
            ["details", {}, ["summary", {}, "The plot's numbers"],
             ["div", {"id": "text-competition-numbers", "class": "grid-wrap", "tabindex": 0, "role": "region",
                      "aria-label": "the plot's numbers, scrollable"},
              table]]]


def competition_sentence():
    """The rule's numbers, seed by seed: the median p with no chunk between, after the most near-duplicate lines,
    and after as many unrelated ones."""
    found = [measured(seed)["competition"] for seed in mha.text.SEEDS]
    last = found[0]["chunks"][-1]
    seeds = ", ".join(str(seed) for seed in mha.text.SEEDS)  # "0, 1, 2": one word fewer than listed()
    return (f"falls from {listed([share_text(c['near'][0]) for c in found])} (seeds {seeds}) to "
            f"{listed([share_text(c['near'][-1]) for c in found])} after {last} near-duplicate lines, and to "
            f"{listed([share_text(c['unrelated'][-1]) for c in found])} after {last} unrelated ones")


def minutes(seconds):
    return f"{seconds / 60:.1f} minutes" if seconds >= 90 else f"{seconds:.1f} seconds"


def without_previous(seed):
    """The seed's unseen copying with all its previous-token heads (mha.text.roles) off together, as measured."""
    m = measured(seed)
    return next(t["unseen"] for t in m["tasks"] if t["off"] == m["previous_token_heads"])


def span(values, say):
    """The range of the seeds' values, as said: '64.8-77.8%' (one value if they print alike)."""
    low, high = say(min(values)), say(max(values))
    if low == high:
        return low
    unit = "%" if low.endswith("%") and high.endswith("%") else ""
    return f"{low[:len(low) - len(unit)]}-{high}"


def bits_verdict():
    """The seeds' bits per character beside the bigram's (the same held-out text and bigram table for all)."""
    bits = [measured(seed)["bits_per_character"] for seed in mha.text.SEEDS]
    return (f"{span([b['model'] for b in bits], lambda x: f'{x:.2f}')} bits per character to a bigram table's "
            f"{bits[0]['bigram']:.2f}")


def recipe(stages):
    """The stages in words: '8,000 steps at 32 characters of repeated random strings, then 4,000 at 64 and 8,000 at
    128 with 60% and 40% of those' (the rest: docstrings and made-up agent transcripts)."""
    first, *rest = stages
    assert first["mix"][0] == 1 and rest, stages  # the words say the first stage is copies alone

    sizes = listed([f"{stage['steps']:,} at {stage['context']}" for stage in rest])
    shares = listed([f"{stage['mix'][0]:.0%}" for stage in rest])
    return (f"{first['steps']:,} steps at {first['context']} characters of repeated random strings, then "
            f"{sizes} with {shares} of those")


@functools.cache
def typical(seed=mha.text.DEFAULT_SEED):
    """The seed's typical medians and counts (the trainer measured them with mha.text_lesson.typical)."""
    return lesson.Typical(**measured(seed)["typical"])


def typical_sentence():
    """#text-typical: the default seed's experiment over its typical ids, each insertion's median beside the prompt
    as written and how many ids it lowers p for (paired), and which end the near-duplicate's prompt writes."""
    t = typical()
    one = f"{t.one:.2f}"

    def moved(median, lowers):
        verb = "raises" if median > t.one else "lowers"
        return f"{verb} it to {median:.2f} ({lowers} of {t.count} lower)"
    return (f"Over {t.count} random ids in the default's form, seed {mha.text.DEFAULT_SEED}'s "
            f"median p of the earlier copy's end is {one}; added after the first copy, an exact copy "
            f"{moved(t.exact, t.exact_lowers)}, an unrelated id {moved(t.unrelated, t.unrelated_lowers)}, a "
            f"near-duplicate {moved(t.near, t.near_lowers)}. Beside the near-duplicate it writes the earlier end for "
            f"{t.writes_own} ids, the later for {t.writes_other}, neither for {t.writes_neither}.")


def twins():
    """Which of two near-duplicates these models finish more often, over every seed's typical ids: 'the later one
    wins more often (25, 30, 30 of 60 ids against 10, 14, 16, seeds 0-2)', as measured."""
    found = [typical(seed) for seed in mha.text.SEEDS]
    later, earlier = [t.writes_other for t in found], [t.writes_own for t in found]
    which = {True: "the later one", False: "the earlier one", None: "either one, by seed,"}[lesson.later_twin_wins(found)]
    return (f"{which} wins more often ({', '.join(str(n) for n in later)} of {found[0].count} ids against "
            f"{', '.join(str(n) for n in earlier)}, seeds {mha.text.SEEDS[0]}-{mha.text.SEEDS[-1]})")


PROSE = {
    "text-default": lambda: lesson.DEFAULT_PROMPT,
    "text-last": lambda: str(len(lesson.DEFAULT_PROMPT) - 1),
    "text-room": lambda: room(lesson.DEFAULT_PROMPT),
    "text-context": lambda: str(model().context),
    "text-shape": lambda: f"{model().layers} layers of {model().heads} heads, width {model().width}",
    "text-params": lambda: f"{model().about['parameters']:,}",
    # CPU time, not wall time: wall time swings with what else the machine runs
    "text-minutes": lambda: f"{minutes(max(model(s).about['training_cpu_seconds'] for s in mha.text.SEEDS))}",
    "text-seeds": lambda: listed([str(seed) for seed in mha.text.SEEDS]),
    "text-copy-no-previous": lambda: span([without_previous(s) for s in mha.text.SEEDS], percent),
    "text-recipe": lambda: recipe(model().about["corpus"]["stages"]),
    "text-copy-unseen": lambda: span([m["tasks"][0]["unseen"] for m in map(measured, mha.text.SEEDS)], percent),
    "text-chance": lambda: percent(lesson.chance(model())),
    "text-bits": bits_verdict,
    "text-typical-count": lambda: str(typical().count),
    "text-typical": typical_sentence,
    "text-twins": twins,
    "text-alone": lambda: f"{typical().writes_alone} of {typical().count}",
    "text-head-width": lambda: str(model().head_width),
    "text-copy-share": lambda: percent(lesson.copy_share(model().about["corpus"]["stages"])),
    "text-competition": competition_sentence,
    "text-role-min": lambda: f"{mha.text.ROLE_MIN}",
    "text-role-lift": lambda: f"{mha.text.ROLE_LIFT}",
    "text-moves": lambda: "The roles move between seeds (the table)" if moving_role() else "No role moves between seeds",
}

FIGURES = {
    "fig-text-seeds": Figure(lambda s, v, b: seed_picker(mha.text.DEFAULT_SEED)),
    "fig-text-reads": Figure(lambda s, v, b: reads(_default_reading())),
    "fig-text-switches": Figure(lambda s, v, b: switches(frozenset())),
    "fig-text-maps": Figure(lambda s, v, b: maps(_default_reading(), default_state())),
    "fig-text-near": Figure(lambda s, v, b: _default_experiments()["fig-text-near"]),
    "fig-text-card": Figure(lambda s, v, b: card(mha.text.DEFAULT_SEED)),
    "fig-text-roles": Figure(lambda s, v, b: roles_table()),
    "fig-text-apart": Figure(lambda s, v, b: dissociations()),
    "fig-text-competition": Figure(lambda s, v, b: competition_plot()),
}
