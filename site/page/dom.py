"""Figure trees: one tiny node format, drawn as HTML at build time and as DOM in the browser.

A node is ``[tag, {attribute: value}, child, child, ...]``; a child is a node or
a string (text). ``to_html`` escapes every string and attribute value, and
``to_json`` is what ``window.mhaDraw(id, json)`` in boot.js turns into real DOM
(createElement / setAttribute / textContent, never innerHTML). No style
attributes: colours come from CSS classes.
"""

import html
import json

VOID_TAGS = frozenset({"br", "col", "hr", "img", "input", "wbr"})
ALLOWED_TAGS = frozenset({
    "button", "caption", "code", "div", "em", "figcaption", "figure", "h3", "input", "label",
    "li", "ol", "optgroup", "option", "output", "p", "pre", "select", "small", "span",
    "strong", "table", "tbody", "td", "textarea", "th", "thead", "tr", "ul",
})
_ATTRIBUTE_OK = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def check(node):
    """Raise ValueError unless node is a well-formed tree (same rules the JS drawer enforces)."""
    if isinstance(node, str):
        return
    if not (isinstance(node, list) and len(node) >= 2 and isinstance(node[1], dict)):
        raise ValueError(f"not a node: {node!r:.80}")
    tag, attrs, *children = node
    if tag not in ALLOWED_TAGS:
        raise ValueError(f"tag {tag!r} is not allowed in a figure")
    for name, value in attrs.items():
        if not name or set(name) - _ATTRIBUTE_OK or name.startswith("on") or name == "style":
            raise ValueError(f"attribute {name!r} is not allowed in a figure")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"attribute {name!r} has a {type(value).__name__} value")
    if tag in VOID_TAGS and children:
        raise ValueError(f"<{tag}> cannot have children")
    for child in children:
        check(child)


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
