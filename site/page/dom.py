"""Figure trees: one tiny node format, drawn as HTML at build time and as DOM in the browser.

A node is ``[tag, {attribute: value}, child, child, ...]``; a child is a node or
a string (text). ``to_html`` escapes every string and attribute value, and
``to_json`` is what ``window.mhaDraw(id, json)`` in boot.js turns into real DOM
(createElement / setAttribute / textContent, never innerHTML); ``edits`` sends only what
changed since the last trees, for ``window.mhaUpdate`` (section 9, on every key). No style
attributes: colours come from CSS classes (weight buckets ``w0``..``w9``, head
colours ``head-0``..``head-3``).

The second half holds the building blocks every figure uses: numbers as text,
table cells, tables, selects. No math lives here: every number arrives
computed by ``mha``.
"""

import html
import json
import math
import re

VOID_TAGS = frozenset({"br", "col", "hr", "img", "input", "wbr"})
SVG_TAGS = frozenset({"svg", "g", "line", "polyline", "path", "rect", "circle", "text", "title", "desc", "tspan"})
ALLOWED_TAGS = frozenset({
    "button", "caption", "code", "div", "em", "fieldset", "figcaption", "figure", "h3", "input", "kbd",
    "label", "legend", "li", "ol", "optgroup", "option", "output", "p", "pre", "select", "small", "span",
    "strong", "table", "tbody", "td", "textarea", "th", "thead", "tr", "ul",
}) | SVG_TAGS  # an <svg> and everything inside it is drawn in the SVG namespace
CASED_ATTRIBUTES = frozenset({"viewBox", "preserveAspectRatio"})  # SVG's camel-case names, allowed as written
_ATTRIBUTE = re.compile(r"[a-z0-9-]+")  # an attribute's name, but for CASED_ATTRIBUTES


def check(node):
    """Raise ValueError unless node is a well-formed tree (same rules the JS drawer enforces)."""
    if isinstance(node, str):
        return
    if not (isinstance(node, list) and len(node) >= 2 and isinstance(node[1], dict)):
        raise ValueError(f"not a node: {node!r:.80}")
    tag, attrs = node[0], node[1]
    if tag not in ALLOWED_TAGS:
        raise ValueError(f"tag {tag!r} is not allowed in a figure")
    check_attributes(attrs)
    if len(node) > 2:  # children (every node of a figure is checked on every draw: no copies, no sets)
        if tag in VOID_TAGS:
            raise ValueError(f"<{tag}> cannot have children")
        for child in node[2:]:
            check(child)


def check_attributes(attrs):
    """Raise ValueError unless every attribute of a node may be drawn: its name (no event handler, no style) and
    its value (text, a number, or True / False for present / absent)."""
    for name, value in attrs.items():
        if not (_ATTRIBUTE.fullmatch(name) or name in CASED_ATTRIBUTES) or name.startswith("on") or name == "style":
            raise ValueError(f"attribute {name!r} is not allowed in a figure")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"attribute {name!r} has a {type(value).__name__} value")


def to_html(node):
    """The HTML text of a node (or a string), every text and attribute escaped."""
    if isinstance(node, str):
        return html.escape(node, quote=False)
    tag, attrs, *children = node
    parts = [f"<{tag}"]
    for name, value in attrs.items():
        if value is False:
            continue
        if value is True:
            parts.append(f" {name}")
        else:
            parts.append(f' {name}="{html.escape(str(value), quote=True)}"')
    parts.append(">")
    if tag in VOID_TAGS:
        return "".join(parts)
    parts.extend(to_html(child) for child in children)
    parts.append(f"</{tag}>")
    return "".join(parts)


def to_json(children):
    """The JSON text mhaDraw expects: a list of nodes and strings, the element's new children."""
    for child in children:
        check(child)
    return json.dumps(children, separators=(",", ":"))


def edits(before, after):
    """The edits that bring an element's children drawn from the trees `before` to `after`'s (lists of nodes and
    strings), for boot.js's mhaUpdate: what mhaDraw would change, worked out here, where a subtree the two share is
    skipped by one comparison instead of sent and compared again in the page. Each edit is [kind, path, what], path
    the child indices from the element down:

        ["attrs", path, {name: value}]   set these attributes of the element at path (False: remove it)
        ["node", path, node]             replace the node at path (an element or a text) with a new one
        ["add", path, [node, ...]]       append children to the element at path
        ["cut", path, count]             keep only the first count children of the element at path

    Only for figures without fields: mhaDraw builds an <input> anew to show its value, but an unchanged one is left
    here as the reader set it. Nodes and attributes are checked as to_json checks them. A subtree equal in Python is
    skipped, so an attribute must not go from 0 to False (or 1 to True) with nothing else in its node changing."""
    found = []
    _edits(before, after, [], found)
    for kind, _, what in found:
        if kind == "attrs":
            check_attributes(what)
        elif kind == "node":
            check(what)
        elif kind == "add":
            for node in what:
                check(node)
    return found


def _edits(before, after, path, found, first=0):
    """edits() of the children before[first:] and after[first:] (a node's children start at 2), at path."""
    for k in range(first, min(len(before), len(after))):
        old, new = before[k], after[k]
        if old == new:
            continue
        here = [*path, k - first]
        if old.__class__ is str or new.__class__ is str or old[0] != new[0]:
            found.append(["node", here, new])
            continue
        if old[1] != new[1]:
            was, now = old[1], new[1]
            moved = {name: now.get(name, False) for name in sorted(was.keys() | now.keys())
                     if _drawn(was, name) != _drawn(now, name)}
            if moved:
                found.append(["attrs", here, moved])
        _edits(old, new, here, found, 2)
    if len(after) > len(before):
        found.append(["add", path, after[len(before):]])
    elif len(after) < len(before):
        found.append(["cut", path, len(after) - first])


def _drawn(attrs, name):
    """An attribute as the page draws it: None when absent (or False), "" for True, else its text. Python counts 0
    equal to False and 1 to True; the page does not (tabindex 0 is there, False is not)."""
    value = attrs.get(name, False)
    return None if value is False else "" if value is True else str(value)


def edits_json(before, after):
    """edits(before, after) as the JSON text mhaUpdate expects."""
    return json.dumps(edits(before, after), separators=(",", ":"))


# --- building blocks ---------------------------------------------------------

def number_text(x):
    """The shortest text that parses back to the same float: 1.0 -> '1', 0.9 -> '0.9'."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def fixed(x, digits=4):
    """A number as the figures print it: 4 decimals, or `digits` (the live figure's tables: 2 until the reader
    asks for 4)."""
    return f"{x:.{digits}f}"


def listed(values):
    """Words joined as a sentence lists them: '22', '22 and 75', '22, 24 and 55'."""
    return ", ".join(values[:-1]) + (" and " if len(values) > 1 else "") + values[-1]


def share_text(p):
    """A weight or probability in [0, 1] as the sentences print it: 2 decimals, or 2 significant digits below 0.01
    (0.0073, 0.000059: 0.00 only for a true 0, never 5.9e-05). Tables keep more: 4 decimals, or as the reader asks."""
    if p >= 0.01 or p <= 0:
        return f"{p:.2f}"
    decimals = 1 - math.floor(math.log10(p))
    text = f"{p:.{decimals}f}"
    return f"{p:.{decimals - 1}f}" if float(text) >= 10 ** (2 - decimals) else text  # 0.0099999 -> 0.010


def short(x):
    """A number to at most 4 decimals, trailing zeros dropped: 7.0 -> '7', 0.25 -> '0.25', -0.00001 -> '0'."""
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def vector_text(xs, print_one=number_text):
    """'[0.9, 0.1]': a vector as the prose prints it, each number by print_one (fixed: 4 decimals)."""
    return "[" + ", ".join(print_one(x) for x in xs) + "]"


def beside(x, line, digits=2, gap=False):
    """x printed beside the threshold line: to `digits` decimals, or more where that would put the printed number
    on the other side of the line (0.7998 beside 0.8 prints as 0.7998, not 0.80). gap=True: more still while it
    prints as the line itself and x is not the line ('just over 0.4' must show 0.401, not 0.40)."""
    for d in range(digits, 17):
        text = f"{x:.{d}f}"
        if (float(text) >= line) == (x >= line) and (not gap or float(text) != line or x == line):
            return text
    return repr(x)


def apart(a, b):
    """Two numbers said side by side: 2 decimals each, more (to 4) where 2 would print different ones alike."""
    for digits in (2, 3, 4):
        if a == b or f"{a:.{digits}f}" != f"{b:.{digits}f}":
            break
    return f"{a:.{digits}f}", f"{b:.{digits}f}"


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


def exact_values(numbers):
    """A live table's data-values: every cell's number as repr(), space-separated, in the order of its <td>s.

    The tables mhaPatch keeps up to date carry their exact numbers once per table, not once per cell:
    at 2,304 cells, one attribute write per cell was about a sixth of an edit's redraw.
    """
    return " ".join([repr(float(x)) for x in numbers])


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


def counted(count, noun, plural=None):
    """'1 step', '2 steps', '1,000 steps', '0.5 bytes': a count and its noun, singular only for one.

    plural: the noun's plural when it is not noun + 's'. A whole float prints as a whole number (2.0 -> '2').
    """
    number = int(count) if isinstance(count, float) and count.is_integer() else count
    return f"{number:,} {noun if count == 1 else plural or noun + 's'}"


def slot_range(start, stop):
    """(2, 4) -> 'slots 2-3'; (2, 3) -> 'slot 2'."""
    return f"slot {start}" if stop - start == 1 else f"slots {start}-{stop - 1}"


def select(element_id, options, selected, **attrs):
    """<select id=element_id> of (value, text) options, the one whose value is `selected` chosen."""
    items = [["option", {"value": value, **({"selected": "selected"} if value == selected else {})}, text]
             for value, text in options]
    return ["select", {"id": element_id, **attrs}, *items]


def count_select(element_id, label, choices, selected):
    """<label>label <select id=element_id>whole numbers, `selected` chosen</select></label>."""
    options = [(str(c), str(c)) for c in choices]
    return ["label", {"class": "control"}, label, " ", select(element_id, options, str(selected))]
