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


# --- edits: what a draw of new trees over the last ones changes ------------------------------------

def applied(children, edits):
    """An element's children after page/dom.py's edits, applied by hand here (boot.js's mhaUpdate does it in the
    page): a copy of the children under a root, each edit made at its path of child indices."""
    root = ["root", {}, *json.loads(json.dumps(children))]

    def at(path):
        node = root
        for k in path:
            node = node[2 + k]
        return node

    for kind, path, what in edits:
        if kind == "node":
            at(path[:-1])[2 + path[-1]] = what
        elif kind == "attrs":
            attrs = at(path)[1]
            for name, value in what.items():
                if value is False:
                    attrs.pop(name, None)
                else:
                    attrs[name] = value
        elif kind == "add":
            at(path).extend(what)
        else:
            assert kind == "cut"
            del at(path)[2 + what:]
    return root[2:]


def drawn(children):
    """The trees as the page draws them: an attribute set to False is not there."""
    return [child if isinstance(child, str) else
            [child[0], {k: v for k, v in child[1].items() if v is not False}, *drawn(child[2:])] for child in children]


def test_edits_name_each_change_by_its_path_and_nothing_that_stayed():
    """The <p> keeps its tag: its class changes and its title goes (False); inside it "one" stays, <strong> becomes
    <em> (another tag: a new node at [0, 1]) and "three" is added; the second child, "tail", is cut."""
    before = [["p", {"class": "a", "title": "x"}, "one", ["strong", {}, "two"]], "tail"]
    after = [["p", {"class": "b"}, "one", ["em", {}, "two"], "three"]]
    assert dom.edits(before, after) == [["attrs", [0], {"class": "b", "title": False}],
                                        ["node", [0, 1], ["em", {}, "two"]], ["add", [0], ["three"]], ["cut", [], 1]]
    assert applied(before, dom.edits(before, after)) == drawn(after)
    assert dom.edits(after, after) == []
    # the page draws tabindex 0 and leaves out False, though Python counts them equal; a number becomes its text
    assert dom.edits([["rect", {"x": 1}]], [["rect", {"x": 1, "tabindex": 0}]]) == [["attrs", [0], {"tabindex": 0}]]
    assert dom.edits([["rect", {"x": 1, "tabindex": 0}]], [["rect", {"x": 2, "tabindex": False}]]) == [
        ["attrs", [0], {"tabindex": False, "x": 2}]]
    assert dom.edits([["rect", {"x": 1}]], [["rect", {"x": "1", "y": 2}]]) == [["attrs", [0], {"y": 2}]]


def test_edits_refuse_what_a_draw_refuses():
    with pytest.raises(ValueError, match="tag 'script' is not allowed"):
        dom.edits([["p", {}, "a"]], [["p", {}, ["script", {}, "x"]]])
    with pytest.raises(ValueError, match="attribute 'onclick' is not allowed"):
        dom.edits([["p", {}]], [["p", {"onclick": "x"}]])


def test_section_9s_maps_and_guesses_after_a_typed_character_a_seed_and_a_shorter_text_are_the_edits_applied():
    """The trees the page sends edits between (a character typed at the end, kept runs and cells; another seed's
    model; a text cut short), applied by hand, are the new trees."""
    import mha.text
    from figures import text as fig

    state = fig.default_state()
    reading = fig.read(state)
    runs, cells = fig.map_runs(reading), fig.read_cells(reading)
    typed = fig.with_text(state, state["text"] + "k")
    longer = mha.text.extend(fig.model(), reading, "k")
    other = fig.with_seed(state, 1)
    shorter = fig.with_text(state, state["text"][:20])
    pairs = [(fig.maps(reading, state, None, runs), fig.maps(longer, typed, None, fig.map_runs(longer, runs))),
             (fig.reads(reading, cells), fig.reads(longer, fig.read_cells(longer, cells))),
             (fig.maps(reading, state), fig.maps(fig.read(other), other)),
             (fig.maps(reading, state), fig.maps(fig.read(shorter), shorter)),
             (fig.reads(reading), fig.reads(fig.read(shorter)))]
    for before, after in pairs:
        edits = dom.edits(before, after)
        assert edits and applied(before, edits) == drawn(after)
        assert json.loads(dom.edits_json(before, after)) == edits
