"""The lesson's figures as pure trees: token grid, head weight tables, legends, outputs.

Every function takes numbers computed by ``mha`` (a MultiHeadResult, the one
wide head's weights) and returns a tree ``[tag, {attr: value}, child, ...]``
for ``dom.to_html`` (build time) or ``mhaDraw`` (run time). No math here:
this module only reads results and prints them. Runs in CPython and Pyodide.
The sharing/KV-cache and softmax-competition figures live in lesson_kv and
lesson_competition and are re-exported here, so the page imports one module.
"""

import mha
from lesson_trees import (band_class, body_row, classes, fixed, header_row, joined, number_cell,
                          number_table, number_text, signed, slot_range, table, weight_class)
from lesson_kv import (kv_cache_fields, kv_cache_readout, kv_cache_table, kv_heads_picker,  # noqa: F401
                       model_select, read_kv_fields, sharing_diagram)
from lesson_competition import (competition_curve, competition_figure, competition_tokens,  # noqa: F401
                                distractor_input, parse_distractors, relevant_weights)

MOVED = 0.00005  # a weight that changed by at least this much gets a marker (it shows at 4 decimals)


# --- token grid ------------------------------------------------------------

def token_grid(tokens, heads=None, label="token"):
    """tokens: n lists of d floats -> a table of n x d inputs, aria-label '{label} T slot S'.

    The slot headers carry the band class of the head that reads the slot
    (the simple split, from mha.head_slots); heads=None draws no bands.
    """
    width = len(tokens[0])
    band = _slot_bands(width, heads)
    head = header_row(label, [f"slot {s}" for s in range(width)],
                      lambda s: classes(band_class(band[s])) if s in band else {})
    rows = [body_row(f"{label} {t}", [["td", {}, token_input(x, label, t, s)] for s, x in enumerate(row)])
            for t, row in enumerate(tokens)]
    caption = f"{label}s: edit any number; a column's colour is the head that reads that slot"
    return table(f"{label}s", caption, head, rows, "token-grid")


def token_input(x, label, t, s):
    """One editable number: <input aria-label='{label} {t} slot {s}' value=x>."""
    return ["input", {"type": "text", "inputmode": "decimal", "size": "5", "autocomplete": "off",
                      "spellcheck": "false", "aria-label": f"{label} {t} slot {s}",
                      "data-token": str(t), "data-slot": str(s), "value": number_text(x)}]


def token_buttons(count, label="token"):
    """'add a token' / 'remove the last token' buttons, disabled at mha.MAX_TOKENS and at one token."""
    kebab = label.replace(" ", "-")
    add = {"type": "button", "id": f"add-{kebab}", "data-action": f"add-{kebab}"}
    remove = {"type": "button", "id": f"remove-{kebab}", "data-action": f"remove-{kebab}"}
    if count >= mha.MAX_TOKENS:
        add["disabled"] = "disabled"
    if count <= 1:
        remove["disabled"] = "disabled"
    return ["div", {"class": "token-buttons"},
            ["button", add, f"add a {label}"], ["button", remove, f"remove the last {label}"]]


def exercise_buttons():
    """Section 4's 'try it' (tokens := mha.EXERCISE_TOKENS) and 'back' (tokens := mha.LESSON_TOKENS)."""
    return ["div", {"class": "exercise-buttons"},
            ["button", {"type": "button", "id": "try-exercise", "data-action": "try-exercise"},
             "try it: give token 1 the time stamp of token 0"],
            ["button", {"type": "button", "id": "reset-tokens", "data-action": "reset-tokens"},
             "back to the lesson's tokens"]]


def heads_picker(width, heads):
    """<select aria-label='heads'> offering every head count that divides the width."""
    return _count_select("heads", "heads", [h for h in range(1, width + 1) if _splits(width, h)], heads)


def _count_select(element_id, label, choices, selected):
    """A <select> of whole numbers with `selected` chosen."""
    options = [["option", {"value": str(c), **({"selected": "selected"} if c == selected else {})}, str(c)]
               for c in choices]
    return ["select", {"id": element_id, "aria-label": label}, *options]


def _splits(width, heads):
    """Whether mha accepts `heads` heads over `width` slots (asks mha.head_slots)."""
    try:
        mha.head_slots(width, heads)
    except ValueError:
        return False
    return True


def _slot_bands(width, heads):
    """{slot: head} for the simple split; {} when heads is None."""
    if heads is None:
        return {}
    return {s: h for h, (start, stop) in enumerate(mha.head_slots(width, heads)) for s in range(start, stop)}


# --- head weight tables ----------------------------------------------------

def weights_snapshot(result, wide):
    """[head 0 weights, ..., one wide head's weights]: keep it to pass as `previous` next time."""
    return [*result.weights, wide]


def head_tables(result, wide, previous=None, key_label="token"):
    """Every head's softmax rows, then the one wide head's, each with change markers.

    result: mha.MultiHeadResult; wide: the one wide head's n x m weights;
    previous: an earlier weights_snapshot (or None: no markers).
    """
    now = weights_snapshot(result, wide)
    before = previous if previous is not None and len(previous) == len(now) else [None] * len(now)
    views = [head_view(w, f"head {h} weights", _head_caption(result, h), before[h], key_label, band_class(h))
             for h, w in enumerate(result.weights)]
    views.append(head_view(wide, "one head weights", f"one head over all {len(result.concat[0])} slots",
                           before[-1], key_label, "wide"))
    return ["div", {"class": "head-tables"}, *views]


def _head_caption(result, h):
    """'head 1 (slots 2-3)', naming the key/value head when heads share them."""
    shared = len(set(result.kv_head_of)) < len(result.kv_head_of)
    kv = f", key/value head {result.kv_head_of[h]}" if shared else ""
    return f"head {h} ({slot_range(*result.head_slots[h])}{kv})"


def head_view(weights, label, caption, previous=None, key_label="token", band=""):
    """One head's weight table and its peakedness readout."""
    return ["div", classes("head-view", band),
            weight_table(weights, label, caption, previous, key_label), entropy_readout(weights)]


def weight_table(weights, label, caption, previous=None, key_label="token"):
    """<table aria-label=label>: rows = query tokens, columns = key tokens, 4-decimal weights.

    Each cell has data-value = repr(weight) and a w0..w9 class; with `previous`
    of the same shape, cells that changed by >= MOVED get class 'moved' and a
    signed delta, and the caption ends in ': moved' or ': unchanged'.
    """
    prior = previous if _same_shape(previous, weights) else None
    rows = [body_row(f"token {i}", [weight_cell(w, None if prior is None else prior[i][j])
                                    for j, w in enumerate(row)])
            for i, row in enumerate(weights)]
    moved = prior is not None and _moved(weights, prior)
    if prior is not None:
        caption += ": moved" if moved else ": unchanged"
    head = header_row("query \\ key", [f"{key_label} {j}" for j in range(len(weights[0]))])
    return table(label, caption, head, rows, "weights", "moved" if moved else "")


def weight_cell(weight, before=None):
    """A weight cell; with a `before` weight it moved from, the 'moved' class and a signed delta."""
    if before is None or abs(weight - before) < MOVED:
        return number_cell(weight, weight_class(weight))
    cell = number_cell(weight, weight_class(weight), "moved")
    return [*cell, " ", ["span", {"class": "delta"}, signed(weight - before)]]


def _same_shape(previous, weights):
    return (previous is not None and len(previous) == len(weights)
            and all(len(p) == len(w) for p, w in zip(previous, weights)))


def _moved(weights, previous):
    return any(abs(w - p) >= MOVED for row, prow in zip(weights, previous) for w, p in zip(row, prow))


def entropy_readout(weights):
    """Each row's spread in bits, from mha.entropy: 0 = one sharp peak."""
    values = ", ".join(fixed(mha.entropy(row)) for row in weights)
    return ["p", {"class": "entropy"},
            f"spread of each row (entropy): {values} bits; 0 is one sharp peak, 1 bit is an even split of two keys"]


# --- legends and outputs ---------------------------------------------------

def slot_legend(result):
    """<p> naming the slots each head reads (result.head_slots), each in its head's colour."""
    items = [["span", classes("legend-item", band_class(h)), f"head {h} reads {slot_range(start, stop)}"]
             for h, (start, stop) in enumerate(result.head_slots)]
    return ["p", {"class": "slot-legend"}, *joined(items, "; ")]


def output_tables(result):
    """Each head's outputs (n x head_width), their concatenation (n x d) and the output after w_o."""
    token = "token {}".format
    per_head = [number_table(f"head {h} output", f"head {h}: {result.head_width} numbers per token",
                             out, token, "out {}".format)
                for h, out in enumerate(result.head_outputs)]
    concat = number_table("concatenated heads", "the heads side by side", result.concat, token, "slot {}".format)
    mixed = number_table("output after w_o", "after the output matrix w_o", result.outputs, token, "slot {}".format)
    return ["div", {"class": "output-tables"}, *per_head, concat, mixed]
