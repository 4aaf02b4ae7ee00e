"""What formed in a trained run, named from its measurements: the function a page's prose is built from.

classify(report, accuracy) reads head_report()'s rows and the held-out accuracy and returns plain
JSON-able data: which head has the top induction score, which head of an earlier layer has the top
previous-token score, and whether they form a previous-token -> induction pair (both scores at or over
their thresholds). Anything else is "other": the run found some other way, or none. The thresholds are
lines drawn in the gaps of a sweep: a run just under one is a call, not a different kind of model.
"""

# The thresholds sit in the gaps of bench/training_seeds.py's sweep of the (2, 2) model (seeds 0-71).
# Previous-token: uniform causal attention scores 0.19; the 69 seeds that formed a pair had a layer-0
# head at 0.42-0.68 (layer 0 splits the work over two heads, so no head nears 1), the three that learned
# something else 0.33-0.36. Induction: uniform attention puts 1/(p + 1), 0.09-0.14, on the answer;
# the pairs' layer-1 heads scored 0.94-0.99, the others 0.00-0.02 and 0.63 (seed 22: a weak layer-1 head
# that costs 24 points when switched off, beside a layer-0 head that costs 66).
PREVIOUS_TOKEN_MIN = 0.4
INDUCTION_MIN = 0.8
LEARNED_MIN = 0.9  # held-out accuracy that counts as learned; chance is 1/6 (six tokens)


def top(report, key):
    """The row of report with the largest key (the first, on a tie)."""
    return max(report, key=lambda row: row[key])


def missing_conditions(previous_token, induction):
    """Which of the pair's conditions a run's top scores fail, in this order: "order" (previous_token None: no head
    of an earlier layer), "previous_token" (under PREVIOUS_TOKEN_MIN), "induction" (under INDUCTION_MIN)."""
    return [name for name, failed in (("order", previous_token is None),
                                      ("previous_token", previous_token is not None
                                       and previous_token < PREVIOUS_TOKEN_MIN),
                                      ("induction", induction < INDUCTION_MIN)) if failed]


def classify(report, accuracy):
    """A run's circuit from its head_report() rows and held-out accuracy, as JSON-able data:

    {"kind": "pair" or "other", "learned": accuracy >= LEARNED_MIN, "accuracy",
     "induction_head": [layer, head] (the top induction score), "induction": its score,
     "previous_token_head": [layer, head] (the top previous-token score among the heads of earlier layers than
     the induction head; None when it sits in layer 0), "previous_token": its score (None with it),
     "without_previous_token", "without_induction": accuracy with that head switched off,
     "missing": which of the pair's conditions fail, in this order: "order" (no earlier layer), "previous_token"
     (its score is under PREVIOUS_TOKEN_MIN), "induction" (under INDUCTION_MIN); [] for a pair}.
    Only earlier layers are searched for the previous-token head: a head beside the induction head, or after
    it, cannot have written what the induction head reads.
    """
    ind = top(report, "induction")
    earlier = [row for row in report if row["layer"] < ind["layer"]]
    prev = top(earlier, "previous_token") if earlier else None
    missing = missing_conditions(None if prev is None else prev["previous_token"], ind["induction"])
    return {"kind": "other" if missing else "pair", "missing": missing,
            "learned": accuracy >= LEARNED_MIN, "accuracy": accuracy,
            "previous_token_head": None if prev is None else [prev["layer"], prev["head"]],
            "previous_token": None if prev is None else prev["previous_token"],
            "induction_head": [ind["layer"], ind["head"]], "induction": ind["induction"],
            "without_previous_token": None if prev is None else prev.get("accuracy_ablated"),
            "without_induction": ind.get("accuracy_ablated")}


FADES = 0.5    # a head's pattern "fades" when its score falls below this fraction of what it was
TURNS = 0.2    # it "turns previous-token" when that score passes its induction score and grows by this much


def pattern_change(before, after):
    """What switching other heads off did to one head's pattern, from its (previous_token, induction) scores
    before and after: "fades" (induction below FADES of before), "previous" (previous-token now beats
    induction, up by TURNS or more) or "stays"."""
    (prev_on, ind_on), (prev_off, ind_off) = before, after
    if ind_off < FADES * ind_on:
        return "fades"
    return "previous" if prev_off > max(ind_off, prev_on + TURNS) else "stays"
