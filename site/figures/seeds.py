"""Section 8's many-seed figure: what a hundred training runs formed, at the page's settings.

The data is bench/training_seeds.py's sweep, written by its `site` command into SEEDS_FILE (a
benchmark takes minutes a seed: the build only reads it). Per seed: held-out accuracy and
mha.training.classify()'s verdict ("pair": a previous-token head and an induction head of a
later layer; "other": something else). tests/unit/test_seeds.py trains a seed again and checks
the file still says what the model does. The chart is drawn twice, wide and for a phone (CSS shows one);
figure(rows, steps, mine) rings the reader's own run, redrawn by the page from training.json's copy of the rows.
"""

import json
from functools import lru_cache
from pathlib import Path

import mha.training
from figures.registry import Figure
from page import dom
from page.dom import beside, listed

SEEDS_FILE = Path(__file__).resolve().parent / "training_seeds.json"
WIDTH, HEIGHT = 400, 150        # viewBox units
LEFT, RIGHT, TOP, BOTTOM = 34, 8, 8, 26
CHANCE = 1 / mha.training.VOCAB  # a blind guess is right one time in six
LEARNED = mha.training.LEARNED_MIN
KINDS = {"pair": "previous-token head, then induction head", "other": "learned with no pair over the lines",
         "stalled": f"no pair, below {LEARNED:.0%}"}


@lru_cache(maxsize=1)
def sweep():
    """{"setting": train()'s settings, "seeds": [{"seed", "accuracy", "kind", ...}, ...]} from SEEDS_FILE."""
    return json.loads(SEEDS_FILE.read_text())


def kind(row):
    """'pair' (classify's pair, whatever the accuracy: as section 8's story says it), else 'other' (learned
    without it: way() says how) or 'stalled' (under the learned line)."""
    return "pair" if row["kind"] == "pair" else "other" if row["learned"] else "stalled"


def counts(rows):
    """{kind: how many seeds} over KINDS, in KINDS' order."""
    return {k: sum(1 for row in rows if kind(row) == k) for k in KINDS}


NARROW = 240  # the phone's chart: the same height, fewer ticks, so its 9-unit text is >= 11 px at 375 px


def _x(i, n, width=WIDTH):
    return LEFT + (width - LEFT - RIGHT) * (i + 0.5) / n


def _y(accuracy):
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - accuracy)


SHORT = {"pair": "the pair", "stalled": "stalled"}  # a dot's title, one a seed ("other": way())


def way(row):
    """How a seed that learned without the pair stands: 'scores under the lines' (a previous-token head before its top
    induction score, both under their lines), 'a score under its line' (one of them) or 'no previous-token head' (none
    before its top induction score)."""
    missing = mha.training.missing_conditions(row["previous_token"], row["induction"])
    if "order" in missing:
        return "no previous-token head"
    return "scores under the lines" if len(missing) == 2 else "a score under its line"


def _describe(row):
    """'seed 22: 99.5% held-out, scores under the lines; top induction: layer 1 head 0, 0.63': a dot's title (the score beside
    its line, so seed 75's 0.798 does not read as 0.80; every row keeps its score unrounded, so it is rounded once,
    here)."""
    layer, head = row["induction_head"]
    said = way(row) if kind(row) == "other" else SHORT[kind(row)]
    return (f"seed {row['seed']}: {row['accuracy']:.1%} held-out, {said}; "
            f"top induction: layer {layer} head {head}, {beside(row['induction'], mha.training.INDUCTION_MIN)}")


def chart(rows, width=WIDTH, steps=None, mine=None):
    """<svg>: one dot per seed (x: the seed, y: held-out accuracy), its shape and colour its kind. width: WIDTH for
    a wide screen, NARROW for a phone (drawn for it, not scaled down: fewer ticks, a shorter axis title). steps:
    the sweep's (read from SEEDS_FILE when None); mine: the reader's own run, {"seed", "steps", "accuracy"},
    ringed at its seed, or at the right edge for a seed past the sweep's."""
    n, narrow = len(rows), width < WIDTH
    steps = sweep()["setting"]["steps"] if steps is None else steps
    ticks = [(1.0, "100%"), (LEARNED, f"{LEARNED:.0%}")] + ([] if narrow else [(0.5, "50%")])
    lines = [["line", {"class": "grid", "x1": LEFT, "x2": width - RIGHT, "y1": round(_y(a), 1), "y2": round(_y(a), 1)}]
             for a in (*(a for a, _ in ticks), CHANCE)]
    labels = [["text", {"class": "tick", "x": LEFT - 4, "y": round(_y(a) + 3, 1), "text-anchor": "end"}, text]
              for a, text in ticks]
    labels.append(["text", {"class": "tick", "x": width - RIGHT, "y": round(_y(CHANCE) - 3, 1), "text-anchor": "end"},
                   f"chance, {CHANCE:.0%}"])  # inside the plot, where no seed's dot falls: the left margin clips it
    dots = [["circle", {"class": f"seed-{kind(row)}", "cx": round(_x(i, n, width), 1),
                        "cy": round(_y(row["accuracy"]), 1), "r": "2.6"}, *([] if narrow else [["title", {}, _describe(row)]])]
            for i, row in enumerate(rows)]  # a phone has no hover: its dots go untitled (the table lists the seeds)
    axis = ["text", {"class": "axis-title", "x": (LEFT + width - RIGHT) / 2, "y": HEIGHT - 6, "text-anchor": "middle"},
            f"seeds 0-{n - 1}, {steps} steps each" if narrow else f"seed 0 to {n - 1}, each trained {steps} steps"]
    return ["svg", {"viewBox": f"0 0 {width} {HEIGHT}", "class": "seeds-chart " + ("narrow" if narrow else "wide"),
                    "role": "img", "aria-label": summary(rows)}, *lines, *labels, *dots, axis,
            *([] if mine is None else your_run(mine, n, width, steps))]


def your_run(mine, n, width, steps):
    """The reader's run on the chart: a ring at its seed's x (past the last dot for a seed outside 0..n-1) and its
    accuracy's y, and a label that names it (and its steps, when they are not the sweep's)."""
    inside = 0 <= mine["seed"] < n
    x = _x(mine["seed"], n, width) if inside else width - RIGHT
    y = _y(mine["accuracy"])
    said = f"your seed {mine['seed']}" + ("" if mine["steps"] == steps else f", {dom.counted(mine['steps'], 'step')}")
    left = x > width / 2
    return [["circle", {"class": "seed-mine", "cx": round(x, 1), "cy": round(y, 1), "r": "5"},
             ["title", {}, f"{said}: {mine['accuracy']:.1%} held-out"]],
            ["text", {"class": "tick mine", "x": round(x + (-8 if left else 8), 1),
                      "y": round(y + 22 if y < HEIGHT / 2 else y - 10, 1), "text-anchor": "end" if left else "start"},
             said]]


def legend(rows):
    """What the marks mean, as text (readable at any width): one key per kind that some seed has."""
    present = counts(rows)
    return ["p", {"class": "seeds-legend"},
            *dom.joined([["span", {"class": f"seed-key seed-{k}"}, KINDS[k]] for k in KINDS if present[k]], " ")]


def table(rows):
    """The chart's numbers for screen readers and for checking: each kind's count and its seeds."""
    body = [dom.body_row(KINDS[k], [["td", {}, str(count)],
                                    ["td", {}, ", ".join(str(row["seed"]) for row in rows if kind(row) == k)
                                     if k != "pair" else "the rest"]])
            for k, count in counts(rows).items()]
    return dom.table("what each seed formed", "What each seed formed, by the lines below",
                     dom.header_row("what formed", ["seeds", "which"]), body, "seeds-table")


def summary(rows):
    """One sentence: how many seeds learned, how many formed the pair."""
    learned = [row for row in rows if row["learned"]]
    pairs = sum(row["kind"] == "pair" for row in learned)
    return (f"{len(learned)} of {len(rows)} seeds reach {LEARNED:.0%} held-out accuracy; {pairs} of them form a "
            f"previous-token head and an induction head in a later layer.")


def try_seed(rows):
    """The seeds that learned without the pair, grouped by way(), and one of them for the reader to train."""
    other = [row for row in rows if kind(row) == "other"]
    if not other:
        return "Every seed that learned formed the pair at these settings."
    groups = {}
    for row in other:
        groups.setdefault(way(row), []).append(str(row["seed"]))

    def said(name, seeds, verb=""):
        whose = "its" if len(seeds) == 1 else "their"
        said = {"scores under the lines": "both top scores under their lines",
                "a score under its line": "a top score under its line",
                "no previous-token head": f"no previous-token head before {whose} top induction score"}
        return f"{listed(seeds)}{verb} with {said[name]}"

    (name, seeds), *rest = groups.items()
    one = len(seeds) == 1
    first = ("Seed " if one else "Seeds ") + said(name, seeds, " learns" if one else " learn")
    others = [said(way_name, more) for way_name, more in rest]
    return "; ".join([first, *others]) + f". Train seed {other[0]['seed']} above."


def figure(rows, steps=None, mine=None):
    """The chart (wide and phone), its key and its caption (the table sits in the section's <details>,
    fig-seeds-table); mine: the reader's run, ringed (see chart)."""
    return ["figure", {"class": "seeds-figure"}, legend(rows), chart(rows, WIDTH, steps, mine),
            chart(rows, NARROW, steps, mine),
            ["figcaption", {}, summary(rows), " ", try_seed(rows), " ", calls(rows)]]


def calls(rows):
    """The kinds are lines drawn through a spread, not natural kinds: the closest call to each line among the seeds."""
    said = []
    for key, line, name in (("previous_token", mha.training.PREVIOUS_TOKEN_MIN, "previous-token"),
                            ("induction", mha.training.INDUCTION_MIN, "induction")):
        closest = min((row for row in rows if row[key] is not None), key=lambda row: abs(row[key] - line))
        side = "under" if closest[key] < line else "over"
        printed = beside(closest[key], line, gap=True)
        said.append(f"seed {closest['seed']}'s {name} head scores {printed}, just {side} {line}")
    return f"The kinds are calls against lines: {said[0]}; {said[1]}."


FIGURES = {  # static: drawn at build time only (the sweep does not change with any control)
    "fig-seeds": Figure(lambda s, v, b: [figure(sweep()["seeds"])]),
    "fig-seeds-table": Figure(lambda s, v, b: [table(sweep()["seeds"])]),
}
PROSE = {}
