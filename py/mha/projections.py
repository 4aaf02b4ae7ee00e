"""Projections: x @ W, and seeded random learned weights."""

import math
import random

from .attention import dot
from .checks import check_count, check_finite_result, check_matrix


def project(vectors, w, name="projection"):
    """vectors @ w; vectors: n lists of d floats, w: d rows of d_out floats -> n x d_out."""
    width = check_matrix("vector", vectors)
    check_weight(name, w, width)
    return matmul(vectors, w)


def matmul(vectors, w):
    """x @ W without checks: n x d times d x d_out -> n x d_out.

    Weights given as tuples of tuples cannot change, so their columns and the
    rows they produced are kept: when the reader edits one token, only that
    token's row is projected again (a 64 x 64 projection costs milliseconds
    in the browser). Weights given as lists are used as they are, every time.
    """
    kept = _KEPT.get(id(w))
    if kept is None or kept[0] is not w:
        if not _immutable(w):
            return _rows_times(vectors, list(zip(*w)))
        kept = _keep(w)
    _, columns, rows = kept
    out = []
    for x in vectors:
        key = tuple(x)
        row = rows.get(key)
        if row is None:
            row = rows[key] = tuple(_rows_times([x], columns)[0])
        out.append(list(row))  # a fresh list: the caller may change it
    if len(rows) > _MAX_KEPT_ROWS:
        rows.clear()
    return out


def _rows_times(vectors, columns):
    out = [[dot(x, col) for col in columns] for x in vectors]
    check_finite_result("projection", out)
    return out


_KEPT = {}  # id(w) -> (w, its columns, {input row: output row}) for tuple weights
_MAX_KEPT_WEIGHTS = 16
_MAX_KEPT_ROWS = 4096


def _immutable(w):
    return type(w) is tuple and all(type(row) is tuple for row in w)


def _keep(w):
    if len(_KEPT) >= _MAX_KEPT_WEIGHTS:
        _KEPT.clear()
    kept = _KEPT[id(w)] = (w, tuple(zip(*w)), {})
    return kept


def check_weight(name, w, rows, cols=None):
    """w must be `rows` lists of `cols` finite floats (cols: any, if None)."""
    kept = _KEPT.get(id(w))
    if kept is not None and kept[0] is w and len(w) == rows and (cols is None or len(kept[1]) == cols):
        return  # checked when it was first kept, and tuples cannot change
    if not isinstance(w, (list, tuple)) or len(w) != rows:
        got = len(w) if isinstance(w, (list, tuple)) else type(w).__name__
        raise ValueError(f"{name} must have {rows} rows (one per input slot), got {got}")
    width = check_matrix(f"{name} row", w)
    if cols is not None and width != cols:
        raise ValueError(f"{name} must have {cols} columns, got {width}")


def random_projections(width, heads, *, kv_heads=None, seed=0):
    """Seeded learned weights: w_q, w_k, w_v, w_o as a dict for multi_head_attention(**...).

    Each matrix is a tuple of row tuples, immutable, so matmul can keep its work.

    w_q, w_o: d x d; w_k, w_v: d x (kv_heads * head_width). Entries are uniform
    in [-a, a] with a = sqrt(3 / d) (variance 1/d), drawn from random.Random(seed),
    whose uniform() gives the same numbers in CPython and Pyodide.
    """
    check_count("width", width)
    check_count("heads", heads)
    kv_heads = heads if kv_heads is None else kv_heads
    check_count("kv_heads", kv_heads)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, got {seed!r}")
    if width % heads:
        raise ValueError(f"width {width} is not divisible by {heads} heads")
    kv_width = kv_heads * (width // heads)
    rng = random.Random(seed)
    a = math.sqrt(3.0 / width)

    def draw(cols):
        return tuple(tuple(rng.uniform(-a, a) for _ in range(cols)) for _ in range(width))

    return {"w_q": draw(width), "w_k": draw(kv_width), "w_v": draw(kv_width), "w_o": draw(width)}
