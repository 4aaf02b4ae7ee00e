"""The head figures as pure trees: controls, token grid, head weight tables, legends, outputs.

Every function takes numbers computed by ``mha`` (a MultiHeadResult, the one
wide head's weights) or the figure state, and returns a tree
``[tag, {attr: value}, child, ...]`` for ``dom.to_html`` (build time) or
``mhaDraw`` (run time). No math here: this module only reads results and
prints them. Runs in CPython and Pyodide.
"""

import mha
from figures.pictures import attention_picture, pictured, pictures_note
from figures.registry import NO_PATCH, Figure
from page.dom import (band_class, body_row, classes, count_select, counted, exact_values, fixed, header_row,
                      joined, number_text, select, signed, slot_range, table, weight_class)
from page.state import DEFAULT_CONTEXT, button_rules, lesson_shape, reads_slices

# --- controls ----------------------------------------------------------------

PROJECTIONS = (("identity", "identity slices"), ("random", "random projections (seeded)"))


def _checkbox(element_id, on):
    return ["input", {"type": "checkbox", "id": element_id, **({"checked": "checked"} if on else {})}]


def options_controls(state):
    """Projections (identity slices or seeded random), the seed, the causal mask switch, and how many decimals
    the tables print (2, or 4 for a pencil check): children."""
    return [["label", {"class": "control"}, "projections ", select("projections", PROJECTIONS, state["projections"])],
            " ",
            ["label", {"class": "control"}, "seed ",
             ["input", {"id": "seed", "type": "text", "inputmode": "numeric", "size": "10", "autocomplete": "off",
                        "aria-describedby": "seed-error", "value": str(state["seed"])}]], " ",
            ["label", {"class": "control"}, _checkbox("causal", state["causal"]),
             " causal mask (each token sees only itself and earlier tokens)"], " ",
            ["label", {"class": "control"}, _checkbox("digits", state["digits"] == 4),
             " 4 decimals (2 until checked)"]]


def cross_switch(state):
    """The cross-attention switch (section 7): children."""
    return [["label", {"class": "control"}, _checkbox("cross", state["context"] is not None),
             " cross-attention: keys and values from a second sequence (the context)"]]

# --- token grid ------------------------------------------------------------

def token_grid(tokens, heads=None, label="token"):
    """tokens: n lists of d floats -> a table of n x d inputs, aria-label '{label} T slot S'.

    Each slot header names (and is coloured by) the head that reads the slot in
    the simple split (mha.head_slots); heads=None draws no bands. The header
    row sits in <thead id='{label}-grid-head'> so it can be redrawn alone.
    """
    rows = [body_row(f"{label} {t}", [["td", {}, token_input(x, label, t, s)] for s, x in enumerate(row)])
            for t, row in enumerate(tokens)]
    caption = f"{label}s: arrow keys move between fields"  # the header row names each slot's head, if any
    return ["table", {"aria-label": f"{label}s", "class": "figure-table token-grid"}, ["caption", {}, caption],
            ["thead", {"id": f"{label.replace(' ', '-')}-grid-head"}, token_grid_head(len(tokens[0]), heads, label)],
            ["tbody", {}, *rows]]


def token_grid_head(width, heads, label="token"):
    """The grid's header row: 'slot S' over each column, with the head that reads it (if heads)."""
    band = _slot_bands(width, heads)
    cols = [["th", {"scope": "col", **(classes(band_class(band[s])) if s in band else {})}, f"slot {s}",
             *([["span", {"class": "reader"}, f"head {band[s]}"]] if s in band else [])]
            for s in range(width)]
    return ["tr", {}, ["th", {"scope": "col"}, label], *cols]


def token_input(x, label, t, s):
    """One editable number: <input aria-label='{label} {t} slot {s}' value=x>."""
    return ["input", {"type": "text", "inputmode": "decimal", "size": "5", "autocomplete": "off",
                      "spellcheck": "false", "aria-label": f"{label} {t} slot {s}",
                      "data-token": str(t), "data-slot": str(s), "value": number_text(x)}]


def token_buttons(count, label="token"):
    """'add a token' / 'remove the last token' buttons, disabled as state.button_rules says."""
    kebab = label.replace(" ", "-")
    add_off, remove_off, _ = button_rules(count)
    add = {"type": "button", "id": f"add-{kebab}", "data-action": f"add-{kebab}", **_disabled(add_off)}
    remove = {"type": "button", "id": f"remove-{kebab}", "data-action": f"remove-{kebab}", **_disabled(remove_off)}
    return ["div", {"class": "token-buttons"},
            ["button", add, f"add a {label}"], ["button", remove, f"remove the last {label}"]]


def _disabled(off):
    return {"disabled": "disabled"} if off else {}


WIDTHS = (4, 8, 16, 32, 64)  # the widths the page offers (mha.MAX_WIDTH is the largest)


def width_picker(width):
    """<select id='width'> of WIDTHS (plus the current width if a shared link brought another)."""
    return count_select("width", "width", sorted(set(WIDTHS) | {width}), width)


def heads_picker(width, heads):
    """<select id='heads'> offering every head count that divides the width (mha.head_choices)."""
    return count_select("heads", "heads", mha.head_choices(width), heads)


def _slot_bands(width, heads):
    """{slot: head} for the simple split; {} when heads is None."""
    if heads is None:
        return {}
    return {s: h for h, (start, stop) in enumerate(mha.head_slots(width, heads)) for s in range(start, stop)}


# --- head weight tables ----------------------------------------------------

MANY_CELLS = 600  # above this many weights, tables out of view skip layout (CSS content-visibility)


def weights_snapshot(result, wide):
    """[head 0 weights, ..., one wide head's weights]: keep it to pass as `previous` next time."""
    return [*result.weights, wide]


def _head_views(result, wide, previous, label_suffix, sliced=True):
    """(label, caption, band, weights, changes) per table: each head, then the one wide head."""
    now = weights_snapshot(result, wide)
    before = previous if previous is not None and len(previous) == len(now) else [None] * len(now)
    names = [(f"head {h}{label_suffix}", _head_caption(result, h, sliced), band_class(h))
             for h in range(len(result.weights))]
    names.append((f"one head{label_suffix}", f"one head over all {result.width} slots", "wide"))
    return [(label, caption, band, w, changes)
            for (label, caption, band), w, changes in zip(names, now, table_changes(now, before))]


_LAST_CHANGES = []  # [(now, before, changes)]: the last table_changes, held so that `is` compares live objects


def table_changes(now, before):
    """[mha.weight_changes(prior, w), or None without a prior] per table. One redraw asks twice for the same
    tables (head-tables and moved-summary, from one View and the one shown before it): the second time gets the
    first answer instead of comparing every weight again (2,304 at 16 x 64 with 8 heads)."""
    if _LAST_CHANGES:
        was_now, was_before, changes = _LAST_CHANGES[0]
        if len(was_now) == len(now) and all(a is b for a, b in zip(was_now, now)) and \
                all(a is b for a, b in zip(was_before, before)):
            return changes
    changes = [None if prior is None else mha.weight_changes(prior, w) for w, prior in zip(now, before)]
    _LAST_CHANGES[:] = [(now, before, changes)]
    return changes


def head_tables(result, wide, previous=None, key_label="token", label_suffix=" weights", sliced=True, masked=False,
                digits=4):
    """Every head's softmax rows, then the one wide head's, each with change markers.

    result: mha.MultiHeadResult; wide: the one wide head's n x m weights;
    previous: an earlier weights_snapshot (or None: no markers). Tables are
    named 'head H weights' and 'one head weights' (label_suffix: ' weights'). Beside each
    table, up to pictures.PICTURE_TOKENS tokens, its attention picture (figures/pictures.py).
    sliced: each head reads its own slots (identity slices), which its caption names.
    masked: the causal mask is on, so a key after its query reads "masked", not a weight of 0.0000.
    digits: the decimals each weight and entropy prints (the moved cells' changes keep 4).
    """
    drawn = pictured(wide)
    views = [["div", classes("head-view", band, "pictured" if drawn else ""),
              weight_table(w, label, caption, changes, key_label, masked, digits),
              *([attention_picture(w)] if drawn else []), entropy_readout(w, digits)]
             for label, caption, band, w, changes in _head_views(result, wide, previous, label_suffix, sliced)]
    cells = (len(result.weights) + 1) * len(wide) * len(wide[0])
    return ["div", classes("head-tables", "many" if cells > MANY_CELLS else ""),
            *([] if drawn else [pictures_note(wide)]), *views]


def head_tables_patch(result, wide, previous=None, label_suffix=" weights", sliced=True, masked=False, digits=4):
    """What changes in head_tables(...) when only numbers moved (same shape): for mhaPatch.

    {"text", "class", "delta": one line per <td>, joined by newlines; "value": the float of each <td>,
    whose repr() its table lists in data-values; "marked": [text, class] per [data-patch]},
    in document order: exactly what head_tables would draw. All tables' cells go through one
    joined_weight_columns call (a 16 x 64 edit with 8 heads patches 2304 cells on every keystroke).
    """
    views = _head_views(result, wide, previous, label_suffix, sliced)
    rows = [row for *_, w, _ in views for row in w]
    # A patch follows a view of the same shape, so every table has its changes, or (no view before) none has.
    changes = None if previous is None else [row for *_, c in views for row in c]
    marked = [part for _, caption, _, w, c in views
              for part in (_caption_parts(caption, c), [_entropy_text(w, digits), "entropy"])]
    columns = joined_weight_columns(rows, changes, masked, digits)
    return dict(zip(("text", "class", "value", "delta"), columns), marked=marked)


def _head_caption(result, h, sliced=True):
    """'head 1 (slots 2-3)', or 'head 1 (all slots, projected)' under random projections; naming the
    key/value head when heads share them."""
    shared = len(set(result.kv_head_of)) < len(result.kv_head_of)
    kv = f", key/value head {result.kv_head_of[h]}" if shared else ""
    reads = slot_range(*result.head_slots[h]) if sliced else "all slots, projected"
    return f"head {h} ({reads}{kv})"


def weight_table(weights, label, caption, changes=None, key_label="token", masked=False, digits=4):
    """<table aria-label=label>: rows = query tokens, columns = key tokens, weights to `digits` decimals.

    The table's data-values lists repr(weight) of every cell (dom.exact_values); each cell
    has a w0..w9 class; with `changes` (mha.weight_changes against the previous weights),
    a moved cell gets class 'moved' and data-delta (the signed change, shown by CSS after
    the number), and the caption ends in ': moved' or ': unchanged'.
    """
    width = len(weights[0])
    texts, cell_classes, values, deltas = weight_columns(weights, changes, masked, digits)
    cells = [["td", {"class": cls, **({"data-delta": delta} if delta else {})}, text]
             for text, cls, delta in zip(texts, cell_classes, deltas)]
    rows = [body_row(f"token {i}", cells[i * width:(i + 1) * width]) for i in range(len(weights))]
    text, cls = _caption_parts(caption, changes)
    head = header_row("query \\ key", [f"{key_label} {j}" for j in range(width)])
    return ["table", {"aria-label": label, "class": "figure-table weights", "data-values": exact_values(values)},
            ["caption", {"data-patch": "", **classes(cls)}, text], ["thead", {}, head], ["tbody", {}, *rows]]


def _caption_parts(caption, changes):
    """[caption text, class]: ': moved' / ': unchanged' once there is something to compare with."""
    if changes is None:
        return [caption, ""]
    moved, _ = mha.largest_change(changes)
    return [caption + (": moved" if moved else ": unchanged"), "moved" if moved else ""]


_PLAIN = [f"num {weight_class(i / 10)}" for i in range(11)]  # by int(10 * weight): 1.0 -> index 10 -> w9
_MOVED = [f"{cls} moved" for cls in _PLAIN]


def weight_columns(weights, changes=None, masked=False, digits=4):
    """The cells of a weight table, row by row, as four lists: texts (`digits` decimals), classes, weights,
    data-delta (4 decimals: a change is small).

    weights: n >= 1 rows of m >= 1 softmax weights; changes: mha.weight_changes of the same shape, or None.

    A cell's class is 'num wK' (its colour bucket, dom.weight_class) plus ' moved' when
    `changes` (mha.weight_changes) has a non-zero entry for it; its delta is then the signed change, else ''.
    The weights go as they are: a tree's data-values lists their repr(), a patch sends them as numbers
    (boot.js writes the same text).
    """
    texts, cells, flat, deltas = joined_weight_columns(weights, changes, masked, digits)
    return texts.split("\n"), cells.split("\n"), flat, deltas.split("\n")


MASKED = "masked"  # a causal table's cell for a key after its query: no weight at all, not a weight of 0


def joined_weight_columns(weights, changes=None, masked=False, digits=4):
    """weight_columns(...) with texts, classes and deltas each one string, a line per cell: what mhaPatch takes.

    Written for speed: this runs for every weight on every keystroke. Each text column is made by one
    %-operation (the same digits as dom.fixed and dom.signed, which use the same float formatting)
    instead of one format call per cell, and only the cells that moved have a delta to format.
    """
    flat = [w for row in weights for w in row]
    texts = _lines(f"%.{digits}f", flat)
    if changes is None:  # a class by int(10 * weight): softmax weights lie in [0, 1]
        cells = "\n".join([_PLAIN[int(w * 10)] for w in flat])
        deltas = "\n" * (len(flat) - 1)
    else:
        moves = [c for row in changes for c in row]
        cells = "\n".join([(_MOVED if c else _PLAIN)[int(w * 10)] for w, c in zip(flat, moves)])
        deltas = "\n".join(["%+.4f" if c else "" for c in moves]) % tuple([c for c in moves if c])
    if masked:
        m = len(weights[0])
        texts = _masked(texts, m, lambda text: MASKED)
        cells = _masked(cells, m, lambda cls: "num masked moved" if cls.endswith(" moved") else "num masked")
    return texts, cells, flat, deltas


def _masked(lines, m, mark):
    """One line per cell of square m x m tables (stacked): each key after its query gets mark(its line)."""
    parts = lines.split("\n")
    for at in range(len(parts)):
        row, key = divmod(at, m)
        if key > row % m:
            parts[at] = mark(parts[at])
    return "\n".join(parts)


def _lines(spec, numbers):
    """spec % x for each of the numbers, a line each, made by one format operation for the whole list."""
    return "\n".join([spec] * len(numbers)) % tuple(numbers)


def _entropy_text(weights, digits=4):
    return "entropy: " + ", ".join(fixed(mha.entropy(row), digits) for row in weights) + " bits"


def entropy_readout(weights, digits=4):
    """Each row's spread in bits, from mha.entropy: 0 = one sharp peak."""
    return ["p", {"class": "entropy", "data-patch": ""}, _entropy_text(weights, digits)]


def moved_summary(result, wide, previous):
    """One line per table: 'head 1: moved, 4 weights, largest change -0.1698' or 'unchanged'."""
    if previous is None:
        return ["p", {}, "Nothing yet: edit a number or press a button."]
    items = []
    for label, _, band, w, changes in _head_views(result, wide, previous, ""):
        if changes is None:
            items.append(["li", classes(band), f"{label}: new shape, nothing to compare with"])
            continue
        moved, largest = mha.largest_change(changes)
        if moved:
            items.append(["li", classes(band, "moved"), ["strong", {}, f"{label}: moved"],
                          f", {counted(moved, 'weight')}, largest change {signed(largest)}"])
        else:
            items.append(["li", classes(band), f"{label}: unchanged"])
    return ["ul", {"class": "moved-summary"}, *items]


# --- legends and outputs ---------------------------------------------------

def slot_legend(result, sliced=True):
    """<p> naming the slots each head reads (result.head_slots), each in its head's colour; under random
    projections (not sliced) every head reads all of them, through matrices of its own."""
    if not sliced:
        heads = len(result.head_slots)
        who = f"each of the {heads} heads reads" if heads > 1 else "the one head reads"
        return ["p", {"class": "slot-legend"}, f"Random projections: {who} all {result.width} slots, "
                                               f"through matrices of its own."]
    items = [["span", classes("legend-item", band_class(h)), f"head {h}: {slot_range(start, stop)}"]
             for h, (start, stop) in enumerate(result.head_slots)]
    return ["p", {"class": "slot-legend"}, *joined(items, "; ")]


def _output_sections(result):
    """(caption, rows, column names, column bands) of the concatenation and of the output after w_o."""
    hw = result.head_width
    width = result.width
    columns = [(h, j) for h in range(len(result.weights)) for j in range(hw)]  # the concat's slots, head by head
    concat_cols = [f"head {h} out {j}" for h, j in columns]
    bands = [band_class(h) for h, _ in columns]
    mixed = "after the output matrix w_o" if result.outputs is not result.concat else \
        "after the output matrix w_o (identity projections: w_o is the identity, so this equals the concatenation)"
    outputs = counted(hw, "output")
    return [("concatenated heads", f"each head's {outputs} per token, side by side: the concatenation",
             result.concat, concat_cols, bands),
            ("output after w_o", mixed, result.outputs, [f"slot {s}" for s in range(width)], [""] * width)]


def output_tables(result, digits=4):
    """The per-head outputs side by side (head-coloured columns: the concatenation), then the output after w_o,
    to `digits` decimals."""
    tables = []
    for label, caption, rows, cols, bands in _output_sections(result):
        head = header_row("token", cols, lambda s: classes(bands[s]))
        body = [body_row(f"token {i}", [["td", {"class": "num"}, fixed(x, digits)] for x in row])
                for i, row in enumerate(rows)]
        tree = table(label, caption, head, body, "numbers")
        tree[1]["data-values"] = exact_values(x for row in rows for x in row)
        tree[2][1]["data-patch"] = ""
        tables.append(tree)
    return ["div", {"class": "output-tables"}, *tables]


def output_tables_patch(result, digits=4):
    """output_tables' numbers and captions for mhaPatch, columns as in head_tables_patch (same shape)."""
    sections = _output_sections(result)
    flat = [x for _, _, rows, _, _ in sections for row in rows for x in row]
    return {"text": _lines(f"%.{digits}f", flat), "class": "\n".join(["num"] * len(flat)), "value": flat,
            "delta": "\n" * (len(flat) - 1), "marked": [[caption, ""] for _, caption, _, _, _ in sections]}


# --- the registry: this family's elements ----------------------------------------

CROSS_SUFFIX = " cross-attention weights"  # cross tables: 'head 0 cross-attention weights'


def _snapshot(view, cross=False):
    """The weights a redraw compares with (weights_snapshot), or None without a view before."""
    if view is None or (cross and view.cross is None):
        return None
    return weights_snapshot(view.cross, view.cross_wide) if cross else weights_snapshot(view.result, view.wide)


def _head_tables(state, view, before):
    return [head_tables(view.result, view.wide, _snapshot(before), sliced=reads_slices(state), masked=state["causal"],
                        digits=state["digits"])]


def _head_tables_patch(state, view, before):
    return head_tables_patch(view.result, view.wide, _snapshot(before), sliced=reads_slices(state),
                             masked=state["causal"], digits=state["digits"])


def _cross_tables(state, view, before):
    if view.cross is None:
        return []
    return [head_tables(view.cross, view.cross_wide, _snapshot(before, True), "context token", CROSS_SUFFIX,
                        reads_slices(state), digits=state["digits"])]


def _cross_tables_patch(state, view, before):
    if view.cross is None:  # nothing drawn, nothing to patch
        return NO_PATCH
    return head_tables_patch(view.cross, view.cross_wide, _snapshot(before, True), CROSS_SUFFIX,
                             reads_slices(state), digits=state["digits"])


def _size_controls(state, view, before):
    width = len(state["tokens"][0])
    return [width_picker(width), " ", heads_picker(width, state["heads"])]


LESSON_SHAPE_BUTTON = ("lesson-shape", "back to width 4 and 2 plain heads")  # (data-action, text)


def set_elsewhere(state, result):
    """Section 3's opening note when sizes set in sections 2 and 6 differ from the worked example's, with the
    way back; nothing when they are the example's."""
    if lesson_shape(state):
        return []
    heads, kv_heads = len(result.kv_head_of), len(set(result.kv_head_of))
    action, words = LESSON_SHAPE_BUTTON
    return [["p", {"class": "note set-elsewhere"},
             f"Not the worked example's sizes: width {result.width} and {counted(heads, 'head')} "
             f"(section 2), {counted(kv_heads, 'key/value head')} (section 6). ",
             ["button", {"type": "button", "id": "set-elsewhere-back", "data-action": action}, words]]]


def _banded(state):
    """The heads whose slot bands the grid's header shows: none under random projections (every head reads all)."""
    return state["heads"] if reads_slices(state) else None


def _context_grid(state, view, before):
    return [] if state["context"] is None else [token_grid(state["context"], None, "context token")]


FIGURES = {
    # section 2: the recipe
    "fig-size": Figure(_size_controls, ("structure", "controls")),
    "fig-slot-legend": Figure(lambda s, v, b: [slot_legend(v.result, reads_slices(s))], ("structure",)),
    # section 3: the live figure
    "fig-options": Figure(lambda s, v, b: options_controls(s), ("controls",)),
    "fig-set-elsewhere": Figure(lambda s, v, b: set_elsewhere(s, v.result), ("structure", "controls")),
    "token-grid": Figure(lambda s, v, b: [token_grid(s["tokens"], _banded(s))], ("token-grid",)),
    "token-grid-head": Figure(lambda s, v, b: [token_grid_head(len(s["tokens"][0]), _banded(s))],
                              ("structure",), mark=False),
    "fig-token-buttons": Figure(lambda s, v, b: [token_buttons(len(s["tokens"]))]),
    "head-tables": Figure(_head_tables, ("numbers",), _head_tables_patch),
    "fig-outputs": Figure(lambda s, v, b: [output_tables(v.result, s["digits"])], ("numbers",),
                          lambda s, v, b: output_tables_patch(v.result, s["digits"])),
    # section 4: the exercise
    "moved-summary": Figure(lambda s, v, b: [moved_summary(v.result, v.wide, _snapshot(b))], ("numbers",)),
    # section 7: cross-attention
    "fig-cross": Figure(lambda s, v, b: cross_switch(s), ("controls",)),
    "context-grid": Figure(_context_grid, ("context-grid",)),
    "context-buttons": Figure(lambda s, v, b: [token_buttons(len(DEFAULT_CONTEXT), "context token")]),
    "cross-tables": Figure(_cross_tables, ("numbers",), _cross_tables_patch),
}
PROSE = {}
