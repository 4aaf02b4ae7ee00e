"""The figure's state in the URL fragment, so a reader can share what they built.

    #t=1,0,0,1;0.9,0.1,1,0&h=2&kv=2&c=0&p=id&s=0&d=0&len=8192

t: tokens (';' between tokens, ',' between slots); x: context tokens for
cross-attention (absent: self-attention); h: heads; kv: key/value heads;
c: causal 0/1; p: projections id/rand; s: seed; d: distractors; len: section
2's sequence length for one layer of mha.COST_MODEL. Every key after h is an
entry of state.LINKED, which says how it is read and written.
A key in RETIRED names a setting the page no longer has: an old link's value
for it is dropped without a word, and the rest of the link still opens.

This module is the codec only. decode() trusts nothing: every value goes
through mha's parsers, and the decoded state ends in state.compute, the gate
every edit passes, so a link it accepts is one the page can draw. Any problem
raises ValueError with a sentence the page can show as it is.
"""

import re

import mha
from page import state as figure_state
from page.dom import number_text

MAX_FRAGMENT = 2 * mha.MAX_TOKENS * mha.MAX_WIDTH * 26 + 200  # two full sequences of repr()s
MAX_ITEM = 40  # characters in one number or setting: longer is not a number we wrote
ALLOWED = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,;+-=&")
PREFIX = "ignored the link's settings: "
RETIRED = {"temp"}  # temp: section 3's temperature slider, cut (attention has no such knob)


def encode(state):
    """state dict -> 't=...&h=2&kv=2&c=0&p=id&s=0&d=0&len=8192' (no '#'; numbers as their shortest repr)."""
    parts = [("t", _rows_text(state["tokens"]))]
    if state.get("context") is not None:
        parts.append(("x", _rows_text(state["context"])))
    parts.append(("h", str(state["heads"])))
    parts += [(linked.key, linked.write(state[linked.field])) for linked in figure_state.LINKED]
    return "&".join(f"{key}={value}" for key, value in parts)


def _rows_text(rows):
    return ";".join(",".join(number_text(x) for x in row) for row in rows)


def decode(text):
    """'#t=...&h=2...' -> the figure settings (state.FIGURE_KEYS), checked by the gate.

    Missing settings take state.default_state()'s values.

    Raises ValueError("ignored the link's settings: ...") on anything mha rejects.
    """
    try:
        return _decode(text)
    except ValueError as error:
        raise ValueError(PREFIX + str(error)) from None


def _decode(text):
    fields = _fields(text)
    state = figure_state.default_state()
    if "t" in fields:
        state["tokens"] = _parse_rows(fields.pop("t"), "token")
    if "x" in fields:
        state["context"] = _parse_rows(fields.pop("x"), "context token")
    if "h" in fields:
        state["heads"] = state["kv_heads"] = mha.parse_count(fields.pop("h"), "heads", 1, mha.MAX_WIDTH)
    for linked in figure_state.LINKED:
        if linked.key in fields:
            state[linked.field] = linked.parse(fields.pop(linked.key))
    figure_state.compute(state)  # the gate: raises ValueError if the page could not draw it
    return {key: state[key] for key in figure_state.FIGURE_KEYS}


def _fields(text):
    """'#a=1&b=2' -> {'a': '1', 'b': '2'}, refusing long text, odd characters, unknown or repeated keys.

    Keys in RETIRED are dropped with their values.
    """
    text = str(text)
    text = text[1:] if text.startswith("#") else text
    if len(text) > MAX_FRAGMENT:
        raise ValueError(f"the link is {len(text)} characters long, more than {MAX_FRAGMENT}")
    text = unquote(text)
    odd = sorted(set(text) - ALLOWED)
    if odd:
        raise ValueError(f"the link contains characters it should not: {''.join(odd[:10])!r}")
    fields = {}
    for part in filter(None, text.split("&")):
        key, sep, value = part.partition("=")
        if key in RETIRED:
            continue  # a setting the page no longer has: an old link still opens, without it
        if key not in _KNOWN:
            raise ValueError(f"{key[:MAX_ITEM]!r} is not a setting this page knows")
        if not sep:
            raise ValueError(f"the setting {key!r} has no value (write {key}=...)")
        if key in fields:
            raise ValueError(f"the setting {key!r} appears twice")
        if key not in ("t", "x") and len(value) > MAX_ITEM:
            raise ValueError(f"the setting {key!r} is {len(value)} characters long")
        fields[key] = value
    return fields


_ESCAPES = re.compile(r"((?:%[0-9A-Fa-f]{2})+)")


def unquote(text):
    """'1%2C0' -> '1,0': runs of %XX escapes decoded as UTF-8 (bad bytes become U+FFFD).

    What urllib.parse.unquote(text, errors="replace") does. Importing urllib.parse
    costs about 80 ms of the page's start in Pyodide (it imports ipaddress, among others).
    """
    parts = _ESCAPES.split(text)
    parts[1::2] = [bytes.fromhex(run.replace("%", "")).decode("utf-8", "replace") for run in parts[1::2]]
    return "".join(parts)


def _parse_rows(text, label):
    """'1,0;0.9,0.1' -> rows of floats through mha.parse_tokens (caps: MAX_TOKENS x MAX_WIDTH)."""
    rows = [row.split(",") for row in text.split(";")]
    if len(rows) > mha.MAX_TOKENS:
        raise ValueError(f"at most {mha.MAX_TOKENS} {label}s, got {len(rows)}")
    for t, row in enumerate(rows):
        for s, item in enumerate(row):
            if len(item) > MAX_ITEM:
                raise ValueError(f"{label} {t} slot {s} is {len(item)} characters long: not a number")
    return mha.parse_tokens(rows, label)


_KNOWN = {"t", "x", "h"} | {linked.key for linked in figure_state.LINKED}

