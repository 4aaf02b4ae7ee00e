"""The figure's state in the URL fragment, so a reader can share what they built.

    #t=1,0,0,1;0.9,0.1,1,0&h=2&kv=2&c=0&p=id&s=0&d=0&len=8192

t: tokens (';' between tokens, ',' between slots); x: context tokens for
cross-attention (absent: self-attention); h: heads; kv: key/value heads;
c: causal 0/1; p: projections id/rand; s: seed; d: distractors; len: section
2's sequence length for one layer of mha.COST_MODEL. Every key after h is an
entry of state.LINKED, which says how it is read and written.
A key in RETIRED names a setting the page no longer has: an old link's value
for it is dropped without a word, and the rest of the link still opens.

This module is the codec only. read() trusts nothing: every value goes
through mha's parsers, and the decoded state ends in state.compute, the gate
every edit passes, so a link it accepts is one the page can draw. One bad key
does not cost the others: read() keeps every key that is valid on its own (and
beside the keys before it, in ORDER) and names each one it refused, with mha's
sentence. decode() is the strict form: any refusal raises ValueError.
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
    """'#t=...&h=2...' -> the figure settings (state.FIGURE_KEYS), checked by the gate; the strict read().

    Raises ValueError("ignored the link's settings: ...") if read() refused anything.
    """
    settings, refused = read(text)
    if refused:
        raise ValueError(PREFIX + "; ".join(f"{name}: {why}" for name, why in refused))
    return settings


def read(text):
    """'#t=...&h=3&d=50' -> (figure settings or None, [(name, sentence), ...] refused).

    Each key is parsed alone; then the gate sees them all. If it refuses, the keys are tried again one at a
    time in ORDER (what a key depends on comes first), and a key the gate refuses beside the ones already
    kept is refused itself. Missing and refused settings take state.default_state()'s values; the settings
    are None when no key was kept (and the link was not empty), so the page keeps what it shows.
    """
    fields, refused = _fields(text)
    state = figure_state.default_state()
    parsed = {}
    for key in ORDER:
        if key in fields:
            try:
                parsed[key] = _READ[key](fields[key])
            except ValueError as error:
                refused.append((_name(key, fields[key]), str(error)))
    try:
        figure_state.compute(_with(state, parsed))  # the gate, once, for a good link
        state = _with(state, parsed)
    except ValueError:
        for key, value in list(parsed.items()):  # ORDER: one key at a time, each beside the ones kept so far
            try:
                figure_state.compute(_with(state, {key: value}))
                state = _with(state, {key: value})
            except ValueError as error:
                refused.append((_name(key, fields[key]), str(error)))
                del parsed[key]
    if refused and not parsed:
        return None, refused
    return {key: state[key] for key in figure_state.FIGURE_KEYS}, refused


def _with(state, parsed):
    """The state with each parsed key's value; h sets the key/value heads too (a link without kv: plain)."""
    state = dict(state)
    for key, value in parsed.items():
        for field in _FIELDS[key]:
            state[field] = value
    return state


def _name(key, value):
    """A refused key as the reader's link wrote it: 'h=3', or 't' alone when its value is long."""
    return f"{key}={value}" if len(value) <= 12 else key


def _fields(text):
    """'#a=1&b=2' -> ({'a': '1', 'b': '2'}, refused): a part with odd characters, an unknown or repeated key, or
    no value is refused by name; a link too long to read is refused whole.

    Keys in RETIRED are dropped with their values.
    """
    text = str(text)
    text = text[1:] if text.startswith("#") else text
    if len(text) > MAX_FRAGMENT:
        return {}, [("the link", f"it is {len(text)} characters long, more than {MAX_FRAGMENT}")]
    fields, refused = {}, []
    for part in filter(None, text.split("&")):
        part = unquote(part)
        key, sep, value = part.partition("=")
        odd = sorted(set(part) - ALLOWED)
        shown = key[:MAX_ITEM] if not set(key) - ALLOWED else "a setting"
        if odd:
            refused.append((shown, f"the link contains characters it should not: {''.join(odd[:10])!r}"))
        elif key in RETIRED:
            continue  # a setting the page no longer has: an old link still opens, without it
        elif key not in _KNOWN:
            refused.append((shown, f"{key[:MAX_ITEM]!r} is not a setting this page knows"))
        elif not sep:
            refused.append((key, f"the setting {key!r} has no value (write {key}=...)"))
        elif key in fields:
            refused.append((key, f"the setting {key!r} appears twice"))
        elif key not in ("t", "x") and len(value) > MAX_ITEM:
            refused.append((key, f"the setting {key!r} is {len(value)} characters long"))
        else:
            fields[key] = value
    return fields, refused


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


_READ = {"t": lambda text: _parse_rows(text, "token"), "x": lambda text: _parse_rows(text, "context token"),
         "h": lambda text: mha.parse_count(text, "heads", 1, mha.MAX_WIDTH),
         **{linked.key: linked.parse for linked in figure_state.LINKED}}
_FIELDS = {"t": ("tokens",), "x": ("context",), "h": ("heads", "kv_heads"),
           **{linked.key: (linked.field,) for linked in figure_state.LINKED}}
ORDER = ("t", "x", "p", "h", "kv", "c", "s", "d", "len")  # projections before heads: sharing needs them
_KNOWN = set(ORDER)
assert _KNOWN == set(_READ), "ORDER names every key the link can carry"

