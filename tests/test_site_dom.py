"""site/dom.py: the figure tree format escapes everything and refuses what the JS drawer refuses."""

import json

import pytest

import dom

# --- test data ---------------------------------------------------------------

HOSTILE_TEXT = '<img src=x onerror="alert(1)">&'
BAD_NODES = [  # (node, why it is refused)
    (["script", {}, "alert(1)"], "a script tag"),
    (["div", {"onclick": "alert(1)"}], "an event handler attribute"),
    (["div", {"style": "color: red"}], "an inline style (colours are classes)"),
    (["div", {'x" onload="y': "1"}], "an attribute name with quotes"),
    (["input", {}, "text"], "children in a void element"),
    (["div", {"title": ["a"]}], "a non-scalar attribute value"),
    (["div"], "a node without attributes"),
]


# --- tests ---------------------------------------------------------------------

def test_text_and_attributes_are_escaped():
    node = ["p", {"title": HOSTILE_TEXT, "data-value": 0.5}, HOSTILE_TEXT, ["strong", {}, "b"]]
    assert dom.to_html(node) == (
        '<p title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;" data-value="0.5">'
        '&lt;img src=x onerror="alert(1)"&gt;&amp;<strong>b</strong></p>')


def test_void_and_boolean_attributes():
    node = ["input", {"type": "text", "readonly": True, "disabled": False, "value": "1.0"}]
    assert dom.to_html(node) == '<input type="text" readonly value="1.0">'


@pytest.mark.parametrize("node, why", BAD_NODES)
def test_refuses(node, why):
    with pytest.raises(ValueError):
        dom.to_json([node])


def test_json_round_trip_is_the_tree():
    tree = [["td", {"class": "w5", "data-value": "0.5176703075150118"}, "0.5177"], "text"]
    assert json.loads(dom.to_json(tree)) == tree
