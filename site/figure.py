"""Tree builders for the page's figures: pure Python, shared by build.py (pre-render) and main.py (live).

Every builder returns dom nodes (see dom.py); none touches the browser, so the
numbers the reader sees before Python loads are exactly the ones it redraws.
Element ids and accessible names here are the contract with index.html,
main.py and the browser tests.
"""

import mha

BUCKETS = 10  # weight colour classes w0 .. w9, styled in style.css
GRID_ID = "token-grid"
FIGURES_ID = "head-figures"
ERROR_ID = "grid-error"


def bucket(weight):
    """The colour class of a weight in [0, 1]: w0 for [0, 0.1), ..., w9 for [0.9, 1]."""
    return f"w{min(BUCKETS - 1, max(0, int(weight * BUCKETS)))}"


def slot_label(token, slot):
    """Accessible name of one input field, 0-based: 'token 1 slot 3'."""
    return f"token {token} slot {slot}"


def token_grid(tokens, heads=mha.LESSON_HEADS):
    """A table of text inputs, rows = tokens, columns = slots, headed by the head that reads each slot."""
    width = len(tokens[0])
    slots = mha.head_slots(width, heads)
    reader = {s: h for h, (start, stop) in enumerate(slots) for s in range(start, stop)}
    head_row = ["tr", {}, ["th", {"scope": "col"}, "token"]]
    head_row += [["th", {"scope": "col", "class": f"head-{reader[s] % 4}"},
                  f"slot {s}", ["span", {"class": "reader"}, f"head {reader[s]}"]]
                 for s in range(width)]
    rows = [["tr", {}, ["th", {"scope": "row"}, f"token {t}"],
             *[["td", {}, _slot_input(t, s, x)] for s, x in enumerate(vector)]]
            for t, vector in enumerate(tokens)]
    return [["table", {"class": "grid", "aria-label": "token vectors"},
             ["thead", {}, head_row], ["tbody", {}, *rows]]]


def _slot_input(token, slot, value):
    """One editable number; plain text so a half-typed entry reaches parse_number as typed."""
    return ["input", {"type": "text", "inputmode": "decimal", "autocomplete": "off",
                      "spellcheck": "false", "size": 5, "class": "slot",
                      "id": f"token-{token}-slot-{slot}", "data-token": token, "data-slot": slot,
                      "aria-label": slot_label(token, slot), "value": repr(float(value))}]


def parse_grid(texts):
    """texts: n lists of d field texts -> n lists of d floats; ValueError names the bad field."""
    return [[mha.parse_number(text, slot_label(t, s)) for s, text in enumerate(row)]
            for t, row in enumerate(texts)]


def weights_table(label, weights):
    """A softmax table: rows = query tokens, columns = key tokens, 4 decimals, full float in data-value."""
    keys = range(len(weights[0]))
    head_row = ["tr", {}, ["th", {"scope": "col"}, "query \\ key"],
                *[["th", {"scope": "col"}, f"token {k}"] for k in keys]]
    rows = [["tr", {}, ["th", {"scope": "row"}, f"token {q}"],
             *[["td", {"class": bucket(w), "data-value": repr(w)}, f"{w:.4f}"] for w in row]]
            for q, row in enumerate(weights)]
    return ["table", {"class": "weights", "aria-label": label},
            ["thead", {}, head_row], ["tbody", {}, *rows]]


def head_figures(tokens, heads=mha.LESSON_HEADS):
    """One figure per head (its slots and its softmax table), then the one wide head over all slots."""
    result = mha.multi_head_attention(tokens, heads)
    _, wide = mha.single_head_attention(tokens)
    figures = [["figure", {"class": f"head head-{h % 4}"},
                ["figcaption", {}, f"Head {h} reads slots {start}–{stop - 1}"],
                weights_table(f"head {h} weights", weights)]
               for h, (weights, (start, stop)) in enumerate(zip(result.weights, result.head_slots))]
    figures.append(["figure", {"class": "head wide"},
                    ["figcaption", {}, f"One wide head reads all {len(tokens[0])} slots"],
                    weights_table("one head weights", wide)])
    return figures


def prerender():
    """Container id -> its children in the default state: what build.py writes into index.html."""
    return {GRID_ID: token_grid(mha.LESSON_TOKENS),
            FIGURES_ID: head_figures(mha.LESSON_TOKENS)}
