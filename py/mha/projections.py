"""Projections: x @ W, and seeded random weights for them."""

import math
import random

from .attention import dot
from .checks import check_count, check_finite_result, check_matrix


def project(vectors, w, name="projection", cols=None):
    """vectors @ w, checked: vectors n lists of d floats, w d rows of d_out floats -> n x d_out.

    cols: the number of columns w must have (None: any). Raises ValueError naming
    `name` when w has the wrong shape or a product overflows.
    """
    width = check_matrix("vector", vectors)
    check_weight(name, w, width, cols)
    return matmul(vectors, w)


def matmul(vectors, w):
    """x @ W for inputs already checked: n x d times d x d_out -> n x d_out.

    Raises ValueError if a product overflows (huge inputs).
    """
    return matmul_columns(vectors, columns(w))


def columns(w):
    """W's columns, W transposed: d_out tuples of d floats. What matmul_columns takes, so a caller that multiplies
    by the same W on every keystroke (the text model, mha.text.TextModel.block_columns) transposes it once."""
    return tuple(zip(*w))


def matmul_columns(vectors, w_columns):
    """x @ W for inputs already checked, W given by its columns (columns(W)): out[i][c] = x_i . W's column c.
    n x d times d x d_out -> n x d_out; raises ValueError if a product overflows."""
    out = [[dot(x, col) for col in w_columns] for x in vectors]
    check_finite_result("projection", out)
    return out


class Projection(tuple):
    """A weight matrix checked once, when it is made, and frozen: d rows of d_out finite numbers.

    Projection(rows) copies each row into a tuple and raises ValueError naming the first bad
    row, as check_weight would; shape is (d, d_out). A tuple of tuples cannot change and
    __slots__ = () leaves no attribute to set, so what was checked is what gets used.
    """

    __slots__ = ()

    def __new__(cls, rows):
        if not isinstance(rows, (list, tuple)):
            raise ValueError(f"a projection must be a non-empty list of rows, got {type(rows).__name__}")
        w = super().__new__(cls, (tuple(row) if isinstance(row, (list, tuple)) else row for row in rows))
        check_matrix("projection row", w)
        return w

    @property
    def shape(self):
        """(rows, columns)."""
        return len(self), len(self[0])

    def __repr__(self):
        return f"Projection({tuple.__repr__(self)})"


def check_weight(name, w, rows, cols=None):
    """w must be `rows` lists of `cols` finite floats (cols: any, if None).

    A Projection was checked when it was made and cannot change, so only its shape is
    compared: the page passes the same four 64 x 64 matrices on every keystroke, and
    checking their 4 x 64 x 64 numbers again cost ~1.5 ms in Pyodide. Anything else
    (lists, plain tuples) is checked on every call: its numbers may have changed.
    """
    if not isinstance(w, (list, tuple)) or len(w) != rows:
        got = len(w) if isinstance(w, (list, tuple)) else type(w).__name__
        raise ValueError(f"{name} must have {rows} rows (one per input slot), got {got}")
    width = len(w[0]) if type(w) is Projection else check_matrix(f"{name} row", w)
    if cols is not None and width != cols:
        raise ValueError(f"{name} must have {cols} columns, got {width}")


def random_projections(width, heads, *, kv_heads=None, seed=0):
    """Seeded random weights: w_q, w_k, w_v, w_o as a dict of Projections for multi_head_attention(**...).

    Each is checked as it is made and cannot change after, so check_weight compares only its shape.
    (Training would move these numbers; here they stay where the seed put them.)

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
        return Projection([[rng.uniform(-a, a) for _ in range(cols)] for _ in range(width)])

    return {"w_q": draw(width), "w_k": draw(kv_width), "w_v": draw(kv_width), "w_o": draw(width)}


def random_vectors(n, width, *, seed=0):
    """n seeded random vectors of `width` floats, each entry of mean 0 and variance 1.

    Entries are uniform in [-sqrt(3), sqrt(3)] (variance 1), drawn from
    random.Random(seed). The dot product of two of them sums `width` terms of
    variance 1, so it spreads like sqrt(width): what the 1/sqrt(d) scale undoes.
    """
    check_count("n", n)
    check_count("width", width)
    rng = random.Random(seed)
    a = math.sqrt(3.0)
    return [[rng.uniform(-a, a) for _ in range(width)] for _ in range(n)]
