"""site/dom.py: the figure tree format escapes everything and refuses what the JS drawer refuses."""

import json

import re

import pytest

from page import dom

# --- test data ---------------------------------------------------------------

HOSTILE_TEXT = '<img src=x onerror="alert(1)">&'
BAD_NODES = [  # (node, the words of dom.check's refusal)
    (["script", {}, "alert(1)"], "tag 'script' is not allowed"),               # a script tag
    (["div", {"onclick": "alert(1)"}], "attribute 'onclick' is not allowed"),  # an event handler
    (["div", {"style": "color: red"}], "attribute 'style' is not allowed"),    # colours are classes
    (["div", {'x" onload="y': "1"}], "is not allowed in a figure"),           # a name with quotes
    (["input", {}, "text"], "<input> cannot have children"),                  # a void element
    (["div", {"title": ["a"]}], "attribute 'title' has a list value"),         # not a scalar
    (["div"], "not a node"),                                                  # no attributes
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


@pytest.mark.parametrize("node, refusal", BAD_NODES)
def test_refuses(node, refusal):
    with pytest.raises(ValueError, match=re.escape(refusal)):
        dom.to_json([node])


def test_json_round_trip_is_the_tree():
    tree = [["td", {"class": "w5", "data-value": "0.5176703075150118"}, "0.5177"], "text"]
    assert json.loads(dom.to_json(tree)) == tree


@pytest.mark.parametrize("x, shown", [(7.0, "7"), (-3.0, "-3"), (0.25, "0.25"), (0.020000000000000004, "0.02"),
                                      (1 / 3, "0.3333"), (-0.00001, "0"), (0.0, "0"), (12.5, "12.5")])
def test_short_numbers_keep_at_most_four_decimals_and_no_trailing_zeros(x, shown):
    assert dom.short(x) == shown


@pytest.mark.parametrize("p, shown", [(0.9442, "0.94"), (0.0454, "0.05"), (0.01, "0.01"), (1.0, "1.00"),
                                      (0.0, "0.00"), (0.0019505, "0.0020"), (5.9088e-05, "0.000059"),
                                      (0.0073151, "0.0073"), (0.0099999, "0.010"), (0.000999999, "0.0010"),
                                      (0.91234, "0.91"), (1.234e-6, "0.0000012")])
def test_a_sentences_weight_has_2_decimals_or_2_significant_digits_below_001_and_no_exponent(p, shown):
    assert dom.share_text(p) == shown


@pytest.mark.parametrize("count, noun, plural, shown", [
    (1, "step", None, "1 step"), (2, "step", None, "2 steps"), (0, "step", None, "0 steps"),
    (1000, "step", None, "1,000 steps"), (1_234_567, "token", None, "1,234,567 tokens"),
    (1, "key/value head", None, "1 key/value head"), (8, "key/value head", None, "8 key/value heads"),
    (1.0, "byte", None, "1 byte"), (2.0, "byte", None, "2 bytes"), (0.5, "byte", None, "0.5 bytes"),
    (1, "query", "queries", "1 query"), (3, "query", "queries", "3 queries")])
def test_a_count_says_its_noun_in_the_singular_only_for_one_with_thousands_separated(count, noun, plural, shown):
    assert dom.counted(count, noun, plural) == shown
