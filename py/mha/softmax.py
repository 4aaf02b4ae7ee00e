"""Softmax and the entropy of its rows."""

import math


def softmax(scores):
    """exp(s_i - max s) / sum_j exp(s_j - max s); scores: list of floats, -inf = masked.

    Subtracting the max keeps it stable at any magnitude; masked entries get
    weight exactly 0. Returns a list of the same length that sums to 1.
    """
    if not scores:
        raise ValueError("softmax needs at least one score")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or math.isnan(s):
            raise ValueError(f"softmax score {s!r} is not a number")
        if s == math.inf:
            raise ValueError("a score overflowed to infinity: the input numbers are too large")
    return softmax_of_checked(scores)


def softmax_of_checked(scores):
    """softmax() for scores computed from checked inputs: finite, or -inf where masked.

    Only overflow can still go wrong (a dot product of huge numbers): it shows as
    a top score of +inf or a total that is not finite, and raises ValueError.
    """
    top = max(scores)
    if top == -math.inf:
        raise ValueError(f"softmax row of {len(scores)} scores has no finite score (every key is masked)")
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    if not math.isfinite(top) or not math.isfinite(total):
        raise ValueError("a score overflowed to infinity: the input numbers are too large")
    return [e / total for e in exps]


def weight_ratios(weights, unit):
    """weights[i] / weights[unit] for each i: a row counted in units of one key's weight.

    In a softmax row each ratio is e^(s_i - s_unit), so it depends on two scores only, not on how
    many other keys share the row. ValueError when weights[unit] is 0 (a masked key is no unit).
    """
    if not 0 <= unit < len(weights):
        raise ValueError(f"key {unit} is not one of the row's {len(weights)} keys")
    if weights[unit] == 0:
        raise ValueError(f"key {unit} has weight 0: it cannot be the unit")
    return [w / weights[unit] for w in weights]


def entropy(weights):
    """-sum p log2 p, in bits: 0 for one sharp peak, log2(n) for a flat row of n."""
    return -sum([p * math.log2(p) for p in weights if p > 0]) + 0.0  # a list: faster than a generator


def largest_change(changes):
    """(how many weights moved, the largest move with its sign) of a weight_changes table; (0, 0.0) if none."""
    moved = [c for row in changes for c in row if c]
    return len(moved), max(moved, key=abs, default=0.0)


def weight_changes(before, after, threshold=0.00005):
    """after - before for each weight of two same-shaped tables (rows of floats).

    A change smaller than threshold (half the last printed digit of a 4-decimal
    table) counts as none and is 0.0; returns None when the shapes differ.
    """
    if len(before) != len(after) or any(len(a) != len(b) for a, b in zip(before, after)):
        return None
    return [[d if (d := a - b) >= threshold or d <= -threshold else 0.0 for a, b in zip(row_a, row_b)]
            for row_a, row_b in zip(after, before)]
