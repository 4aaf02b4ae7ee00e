"""One head: scaled dot-product attention."""

import math
import operator
from itertools import repeat

from .checks import check_finite_result, check_matrix, check_number
from .softmax import softmax_of_checked


def dot(a, b):
    """a . b for two equal-length lists of floats."""
    return sum(map(operator.mul, a, b))


if hasattr(math, "sumprod"):  # Python 3.12+ and Pyodide: faster, and compensated
    dot = math.sumprod  # noqa: F811


def causal_mask(n, m=None):
    """n x m booleans, True where query i may attend key j (j <= i)."""
    m = n if m is None else m
    return [[j <= i for j in range(m)] for i in range(n)]


def attention(queries, keys, values, mask=None, *, scale=None):
    """softmax(scale q k^T + mask) v, scale = 1/sqrt(key width) unless given; returns (outputs, weights).

    queries: n lists of k floats; keys: m lists of k floats; values: m lists
    of v floats; mask: n x m booleans, True = may attend (None: all).
    outputs: n lists of v floats; weights: n softmax rows of m floats.
    """
    key_width = check_matrix("query", queries)
    check_matrix("key", keys, key_width)
    check_matrix("value", values)
    if len(values) != len(keys):
        raise ValueError(f"{len(keys)} keys but {len(values)} values")
    _check_mask(mask, len(queries), len(keys))
    weights = attention_weights(queries, keys, mask, scale=scale)
    return weighted_sum(weights, values), weights


def attention_weights(queries, keys, mask=None, *, scale=None):
    """softmax(scale q k^T + mask): n softmax rows of m floats.

    scale multiplies every dot product; None is the recipe's 1/sqrt(key width),
    1.0 leaves the dot products as they are. A larger scale sharpens every row,
    a smaller one flattens it (multi_head_attention's temperature T gives
    1/(sqrt(head width) T)). The first half of attention(), for inputs already
    checked (multi_head_attention checks its tokens once, then calls this per head).
    """
    scale = 1.0 / math.sqrt(len(keys[0])) if scale is None else check_positive("scale", scale)
    weights = []
    for i, q in enumerate(queries):
        if mask is None:
            scores = [s * scale for s in map(dot, repeat(q), keys)]
        else:  # a masked key's dot product is never needed: its weight is exp(-inf) = 0
            scores = [dot(q, k) * scale if allowed else -math.inf for k, allowed in zip(keys, mask[i])]
        weights.append(softmax_of_checked(scores))
    return weights


def weighted_sum(weights, values):
    """weights @ values: each query's mix of the value vectors, n lists of v floats.

    The second half of attention(); raises ValueError if a sum overflows.
    """
    columns = list(zip(*values))
    outputs = [[dot(row, col) for col in columns] for row in weights]
    check_finite_result("attention output", outputs)
    return outputs


def slice_scores(query, keys, slots):
    """q[a:b] . k[a:b] for each slice (a, b) of slots, per key; returns (parts, totals).

    query: d floats; keys: m lists of d floats; slots: (start, stop) pairs within d, e.g.
    head_slots(d, heads). parts: m lists of len(slots) dot products; totals: m floats, q . k over
    all d slots: the sum of a key's parts when the slices cover every slot once. The one wide head
    scores a key q . k / sqrt(d), so its softmax weight exp(q . k / sqrt(d)) / Z is a product of
    one factor per slice, exp(q[a:b] . k[a:b] / sqrt(d)): a key low in one slice is held down there.
    """
    width = check_matrix("query", [query])
    check_matrix("key", keys, width)
    for start, stop in slots:
        if not 0 <= start < stop <= width:
            raise ValueError(f"slice {start}:{stop} is not within the {width} slots")
    parts = [[dot(query[start:stop], k[start:stop]) for start, stop in slots] for k in keys]
    totals = [dot(query, k) for k in keys]
    check_finite_result("slice score", [*parts, totals])
    return parts, totals


def check_positive(label, x):
    """x as a float if it is a finite number above 0, else ValueError naming label."""
    check_number(label, x)
    if x <= 0:
        raise ValueError(f"{label} must be above 0, got {x!r}")
    return float(x)


def _check_mask(mask, n, m):
    if mask is None:
        return
    if len(mask) != n or any(len(row) != m for row in mask):
        raise ValueError(f"mask must be {n} x {m} (queries x keys)")
    for i, row in enumerate(mask):
        if not any(row):
            raise ValueError(f"mask row {i} lets query {i} attend to no key")
