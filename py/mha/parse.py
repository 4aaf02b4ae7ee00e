"""Reader input: text from the page's fields, checked once, with messages to show as they are."""

import math
import re

MAX_TOKENS = 32  # caps keep any input from freezing the reader's tab
MAX_WIDTH = 64


MAX_TEXT = 40  # longer field text is cut short in messages


def parse_number(text, label):
    """A finite float from the text of one field; ValueError names the field and the text."""
    cleaned = str(text).strip()
    if not cleaned:
        raise ValueError(f"{label} is empty: type a number")
    try:
        value = float(_plain(cleaned))
    except ValueError:
        raise ValueError(f"{label}: {_shown(cleaned)} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{label}: {_shown(cleaned)} is not a finite number")
    return value


def parse_count(text, label, low, high):
    """A whole number in [low, high] from the text of one field."""
    cleaned = str(text).strip()
    try:
        value = int(_plain(cleaned))
    except ValueError:
        raise ValueError(f"{label}: {_shown(cleaned)} is not a whole number") from None
    if not low <= value <= high:
        raise ValueError(f"{label} must be between {low:,} and {high:,}, got {value:,}")
    return value


GROUPED = r"[+-]?[1-9][0-9]{0,2}(,[0-9]{3})+(\.[0-9]*)?([eE][+-]?[0-9]+)?"  # 8,192 or -1,000.5


def _plain(text):
    """The text if it is plain ASCII without underscores, thousands separators dropped ('8,192' -> '8192'),
    else '' (so it fails to parse).

    The page prints 8,192 and 1,000, so a reader may type them back; only well-placed commas go ('1,5' and
    '0,500' stay refused: a decimal comma is not a thousands separator). float() and int() also accept
    1_000 and non-ASCII digits; a reader should not have to know that, and a shared link should not rely on it.
    """
    if not text.isascii() or "_" in text:
        return ""
    return text.replace(",", "") if re.fullmatch(GROUPED, text) else text


def _shown(text):
    """The reader's text, quoted and cut to MAX_TEXT characters."""
    return repr(text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "...")


def parse_tokens(rows, label="token"):
    """rows: n lists of d field texts -> n lists of d floats, within MAX_TOKENS x MAX_WIDTH."""
    if not rows:
        raise ValueError(f"add at least one {label}")
    if len(rows) > MAX_TOKENS:
        raise ValueError(f"at most {MAX_TOKENS} {label}s, got {len(rows)}")
    width = len(rows[0])
    if not 1 <= width <= MAX_WIDTH:
        raise ValueError(f"{label} width must be between 1 and {MAX_WIDTH}, got {width}")
    for t, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"{label} {t} has {len(row)} slots, {label} 0 has {width}")
    return [[parse_number(text, f"{label} {t} slot {s}") for s, text in enumerate(row)]
            for t, row in enumerate(rows)]
