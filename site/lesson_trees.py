"""Building blocks for the lesson's figure trees: numbers as text, table cells, tables.

A tree is ``[tag, {attr: value}, child, ...]`` with each child a tree or a
string. Attribute values are strings; colours are CSS classes only (weight
buckets ``w0``..``w9``, head colours ``head-0``..``head-3``), never style attributes.
No math lives here: every number arrives computed by ``mha``.
"""


def number_text(x):
    """The shortest text that parses back to the same float: 1.0 -> '1', 0.9 -> '0.9'."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def fixed(x):
    """A number as the figures print it: 4 decimals."""
    return f"{x:.4f}"


def signed(x):
    """A change as the figures print it: '+0.1698', '-0.0036'."""
    return f"{x:+.4f}"


def weight_class(weight):
    """The colour bucket of a softmax weight in [0, 1]: 'w0' .. 'w9'."""
    return f"w{min(9, max(0, int(weight * 10)))}"


def band_class(head):
    """The colour of query head `head` (style.css has head-0..head-3, reused in turn)."""
    return f"head-{head % 4}"


def classes(*names):
    """{'class': 'a b'} from the non-empty names, or {} when there are none."""
    joined = " ".join(name for name in names if name)
    return {"class": joined} if joined else {}


def number_cell(x, *extra_classes):
    """<td data-value=repr(x)>x to 4 decimals</td>: the printed and the exact number."""
    return ["td", {"data-value": repr(float(x)), **classes("num", *extra_classes)}, fixed(x)]


def header_row(corner, names, cell_attrs=None):
    """<tr><th>corner</th><th scope=col>name</th>...</tr>; cell_attrs(i) adds attributes."""
    cells = [["th", {"scope": "col", **(cell_attrs(i) if cell_attrs else {})}, name]
             for i, name in enumerate(names)]
    return ["tr", {}, ["th", {"scope": "col"}, corner], *cells]


def body_row(name, cells):
    """<tr><th scope=row>name</th>cells...</tr>."""
    return ["tr", {}, ["th", {"scope": "row"}, name], *cells]


def table(label, caption, head, rows, *extra_classes):
    """A real <table aria-label=label> with a caption, one header row and body rows."""
    return ["table", {"aria-label": label, **classes("figure-table", *extra_classes)},
            ["caption", {}, caption], ["thead", {}, head], ["tbody", {}, *rows]]


def joined(items, separator):
    """[a, sep, b, sep, c]: text between the items so textContent reads as a sentence."""
    return [part for i, item in enumerate(items) for part in ([separator, item] if i else [item])]


def slot_range(start, stop):
    """(2, 4) -> 'slots 2-3'; (2, 3) -> 'slot 2'."""
    return f"slot {start}" if stop - start == 1 else f"slots {start}-{stop - 1}"


def count_select(element_id, label, choices, selected):
    """<label>label <select id=element_id>whole numbers, `selected` chosen</select></label>."""
    options = [["option", {"value": str(c), **({"selected": "selected"} if c == selected else {})}, str(c)]
               for c in choices]
    return ["label", {"class": "control"}, label, " ", ["select", {"id": element_id}, *options]]
