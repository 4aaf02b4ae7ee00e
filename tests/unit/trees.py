"""A tiny walker for figure trees ([tag, {attrs}, *children]), independent of page/dom.py.

Shared by the unit tests of the figures; a tree may also be a list of children (what a
FIGURES builder returns).
"""


def nodes(tree):
    """Every element node of a tree (or of a list of children), depth first."""
    if isinstance(tree, list) and tree and isinstance(tree[0], str) and len(tree) > 1 and isinstance(tree[1], dict):
        yield tree
        for child in tree[2:]:
            yield from nodes(child)
    elif isinstance(tree, list):
        for child in tree:
            yield from nodes(child)


def find(tree, tag, **attrs):
    """Nodes with this tag whose attributes include attrs (underscores as dashes: aria_label=...)."""
    want = {k.replace("_", "-"): v for k, v in attrs.items()}
    return [n for n in nodes(tree) if n[0] == tag and all(n[1].get(k) == v for k, v in want.items())]


def text(tree):
    """The text content, as the browser's textContent would read it."""
    if isinstance(tree, str):
        return tree
    if tree and isinstance(tree[0], str) and len(tree) > 1 and isinstance(tree[1], dict):
        return "".join(text(child) for child in tree[2:])
    return "".join(text(child) for child in tree)


def class_list(node):
    """A node's classes."""
    return node[1].get("class", "").split()


def exact_values(tree):
    """The data-values of every table in a tree, in document order: the exact numbers (repr texts) of its cells."""
    return [value for table in find(tree, "table") if "data-values" in table[1]
            for value in table[1]["data-values"].split(" ")]
