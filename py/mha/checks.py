"""Input checks shared by the public functions: each raises ValueError naming the values."""

import math


def check_matrix(name, rows, width=None):
    """rows: n lists of `width` finite floats (n >= 1); returns the width."""
    if not isinstance(rows, (list, tuple)) or not rows:
        raise ValueError(f"{name} must be a non-empty list of vectors")
    if width is None:
        width = len(rows[0]) if isinstance(rows[0], (list, tuple)) else 0
    for i, row in enumerate(rows):
        if not (isinstance(row, (list, tuple)) and len(row) == width and width and _all_finite(row)):
            _explain_row(name, i, row, width)
    return width


def _all_finite(row):
    """The fast path: every entry a finite number (strings and None raise TypeError)."""
    try:
        return all(map(math.isfinite, row))
    except TypeError:
        return False


def _explain_row(name, i, row, width):
    """The slow path: raise a ValueError that says what is wrong with row i."""
    if not isinstance(row, (list, tuple)) or not row:
        raise ValueError(f"{name} {i} must be a non-empty list of numbers")
    if len(row) != width:
        raise ValueError(f"{name} {i} has width {len(row)}, expected {width}")
    for j, x in enumerate(row):
        check_number(f"{name} {i} slot {j}", x)


def check_number(label, x):
    """x must be a finite int or float."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"{label} must be a number, got {x!r}")
    if not math.isfinite(x):
        raise ValueError(f"{label} must be finite, got {x!r}")


def check_count(label, value, low=1):
    """value must be a whole number >= low."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{label} must be a whole number, got {value!r}")
    if value < low:
        raise ValueError(f"{label} must be at least {low}, got {value}")


def check_finite_result(name, rows):
    """Raise if a computed matrix overflowed to inf or nan (inputs too large)."""
    if not all(all(map(math.isfinite, row)) for row in rows):
        raise ValueError(f"{name} overflowed: the input numbers are too large")
