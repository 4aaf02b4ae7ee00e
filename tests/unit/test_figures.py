"""The lesson's figure trees carry the rendering contract and mha's numbers.

References: the hand-worked numbers of tests/conftest.py (the worked example, the exercise), written here
as literals; each table's data-values is compared with what mha computes.
"""

import math
import pytest

from figures import kv
from figures import heads as lf
import mha
from trees import class_list, exact_values, find, nodes, text

# --- test data ---------------------------------------------------------------

# The worked example (conftest.py): two tokens, width 4, two heads of width 2.
SECTION_3 = {
    "head 0 weights": [["0.5177", "0.4823"], ["0.5141", "0.4859"]],
    "head 1 weights": [["0.6698", "0.3302"], ["0.3302", "0.6698"]],
    "one head weights": [["0.6341", "0.3659"], ["0.3870", "0.6130"]],
}
# The exercise (conftest.py): token 1's time slots set to token 0's.
SECTION_4 = {
    "head 0 weights": [["0.5177", "0.4823"], ["0.5141", "0.4859"]],
    "head 1 weights": [["0.5000", "0.5000"], ["0.5000", "0.5000"]],
    "one head weights": [["0.5125", "0.4875"], ["0.5100", "0.4900"]],
}


def compute(tokens, heads=2, **options):
    result = mha.multi_head_attention(tokens, heads, **options)
    _, wide = mha.single_head_attention(tokens, context=options.get("context"))
    return result, wide


# The tags the figures use: the page's drawer must allow these (controls: button, select, option).
TAGS = {"button", "caption", "div", "figcaption", "figure", "input", "label", "option", "p", "select",
        "small", "span", "strong", "table", "tbody", "td", "th", "thead", "tr",
        "svg", "g", "line", "text"}  # the attention pictures beside the head tables (figures/pictures.py)


def check_tree(tree):
    """Every node is [tag, {str: str}, children...] with a known tag; no style or on* attribute."""
    for node in nodes(tree):
        assert node[0] in TAGS and isinstance(node[1], dict)
        assert not any(name.startswith("on") for name in node[1])
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in node[1].items())
        assert "style" not in node[1]
        assert all(isinstance(child, (str, list)) for child in node[2:])


def weight_cells(table):
    """[[td, ...] per body row] of a weights table."""
    return [find(row, "td") for row in find(find(table, "tbody")[0], "tr")]


def table(tree, label):
    found = find(tree, "table", aria_label=label)
    assert len(found) == 1, label
    return found[0]


# --- token grid ------------------------------------------------------------

def test_token_grid_labels_every_input_and_bands_the_headers():
    grid = lf.token_grid(mha.LESSON_TOKENS, 2)
    check_tree(grid)
    for t, row in enumerate(mha.LESSON_TOKENS):
        for s, x in enumerate(row):
            (field,) = find(grid, "input", aria_label=f"token {t} slot {s}")
            assert float(field[1]["value"]) == x
    bands = [class_list(th) for th in find(grid, "th", scope="col")[1:]]
    assert bands == [["head-0"], ["head-0"], ["head-1"], ["head-1"]]


def test_context_grid_uses_the_context_label():
    grid = lf.token_grid([[1.0, 2.0]], None, label="context token")
    assert find(grid, "input", aria_label="context token 0 slot 1")
    assert not any("class" in th[1] for th in find(grid, "th"))


@pytest.mark.parametrize("count, add_disabled, remove_disabled", [
    (1, False, True), (2, False, False), (mha.MAX_TOKENS, True, False),
])
def test_token_buttons_have_names_and_respect_the_caps(count, add_disabled, remove_disabled):
    buttons = find(lf.token_buttons(count), "button")
    assert [text(b) for b in buttons] == ["add a token", "remove the last token"]
    assert ["disabled" in b[1] for b in buttons] == [add_disabled, remove_disabled]


def test_heads_picker_offers_the_divisors_of_the_width():
    picker = lf.heads_picker(8, 4)
    assert [text(o) for o in find(picker, "option")] == ["1", "2", "4", "8"]
    assert [text(o) for o in find(picker, "option", selected="selected")] == ["4"]


# --- head weight tables --------------------------------------------------------

@pytest.mark.parametrize("tokens, expected", [
    (mha.LESSON_TOKENS, SECTION_3),
    (mha.EXERCISE_TOKENS, SECTION_4),
])
def test_weight_tables_print_the_lesson_numbers(tokens, expected):
    tree = lf.head_tables(*compute(tokens))
    check_tree(tree)
    for label, rows in expected.items():
        assert [[text(td) for td in row] for row in weight_cells(table(tree, label))] == rows


# The worked example to 2 decimals, rounded by hand from SECTION_3 (none of its 4-decimal numbers ends in 5).
SECTION_3_SHORT = {
    "head 0 weights": [["0.52", "0.48"], ["0.51", "0.49"]],
    "head 1 weights": [["0.67", "0.33"], ["0.33", "0.67"]],
    "one head weights": [["0.63", "0.37"], ["0.39", "0.61"]],
}


def test_the_live_tables_print_2_decimals_until_the_reader_asks_for_4_and_the_same_numbers_behind_both():
    """Section 3's tables, their entropy lines and the outputs, as the registry draws and patches them from
    the state: 2 decimals in a fresh page's state, 4 with digits=4; data-values and the moved cells' changes
    (4 decimals: a change is small) are the same either way."""
    from figures import FIGURES
    from page import state as figure_state
    short = figure_state.default_state()
    assert short["digits"] == 2
    edited = figure_state.with_number(short, "tokens", 1, 3, 1.0)  # the exercise's edit, half of it
    before, view = figure_state.compute(short), figure_state.compute(edited)
    drawn = {}
    for digits, expected in ((2, SECTION_3_SHORT), (4, SECTION_3)):
        state = {**short, "digits": digits}
        tree = FIGURES["head-tables"].build(state, before, None)
        for label, rows in expected.items():
            assert [[text(td) for td in row] for row in weight_cells(table(tree, label))] == rows
        entropy = [text(p) for p in find(tree, "p") if "entropy" in class_list(p)]
        bits = [-sum(w * math.log2(w) for w in row if w > 0) for row in before.result.weights[0]]  # -sum p log2 p
        assert entropy[0] == "entropy: " + ", ".join(f"{b:.{digits}f}" for b in bits) + " bits"
        outputs = FIGURES["fig-outputs"].build(state, before, None)
        assert [text(td) for td in find(outputs, "td")][:4] == [f"{x:.{digits}f}" for x in before.result.concat[0]]
        patch = FIGURES["head-tables"].patch({**edited, "digits": digits}, view, before)
        drawn[digits] = patch
        assert patch["text"].split("\n")[0] == f"{view.result.weights[0][0][0]:.{digits}f}"
    assert drawn[2]["value"] == drawn[4]["value"] and drawn[2]["delta"] == drawn[4]["delta"]
    assert any(len(d.partition(".")[2]) == 4 for d in drawn[2]["delta"].split("\n") if d)


def test_each_weight_table_lists_the_full_floats_from_mha_once_and_its_cells_none():
    result, wide = compute(mha.LESSON_TOKENS)
    tree = lf.head_tables(result, wide)
    for label, weights in [("head 0 weights", result.weights[0]), ("head 1 weights", result.weights[1]),
                           ("one head weights", wide)]:
        assert [float(v) for v in exact_values(table(tree, label))] == [w for row in weights for w in row]
        assert not [td for row in weight_cells(table(tree, label)) for td in row if "data-value" in td[1]]


def test_weight_tables_have_real_headers():
    weights = table(lf.head_tables(*compute(mha.LESSON_TOKENS)), "head 0 weights")
    assert [text(th) for th in find(weights, "th", scope="col")] == ["query \\ key", "token 0", "token 1"]
    assert [text(th) for th in find(weights, "th", scope="row")] == ["token 0", "token 1"]


def test_cross_attention_columns_are_context_tokens():
    context = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]]
    tree = lf.head_tables(*compute(mha.LESSON_TOKENS, context=context), key_label="context token")
    cols = [text(th) for th in find(table(tree, "head 1 weights"), "th", scope="col")]
    assert cols[1:] == ["context token 0", "context token 1", "context token 2"]


def test_the_exercise_moves_head_1_and_the_one_head_only():
    """Section 4: change one subspace, exactly one head answers (and the fat head drifts)."""
    before = lf.weights_snapshot(*compute(mha.LESSON_TOKENS))
    tree = lf.head_tables(*compute(mha.EXERCISE_TOKENS), previous=before)
    moved = {label: [td for td in nodes(table(tree, label)) if "moved" in class_list(td) and td[0] == "td"]
             for label in SECTION_4}
    assert [len(moved[label]) for label in SECTION_4] == [0, 4, 4]
    assert text(find(table(tree, "head 0 weights"), "caption")[0]).endswith(": unchanged")
    assert text(find(table(tree, "head 1 weights"), "caption")[0]).endswith(": moved")
    deltas = [td[1]["data-delta"] for td in find(table(tree, "head 1 weights"), "td") if "data-delta" in td[1]]
    assert deltas == ["-0.1698", "+0.1698", "+0.1698", "-0.1698"]


def test_no_markers_without_previous_or_when_the_shape_changed():
    result, wide = compute(mha.LESSON_TOKENS)
    three = lf.weights_snapshot(*compute([*mha.LESSON_TOKENS, [0.0, 0.0, 0.0, 0.0]]))
    for previous in (None, three):
        tree = lf.head_tables(result, wide, previous)
        assert not [td for td in find(tree, "td") if "data-delta" in td[1]]
        assert not any(text(c).endswith(("moved", "unchanged")) for c in find(tree, "caption"))


@pytest.mark.parametrize("delta, marked", [(0.00004, False), (0.00006, True), (-0.2, True)])
def test_the_moved_threshold_is_mha_weight_changes(delta, marked):
    (change,), = mha.weight_changes([[0.5 + delta]], [[0.5]])
    (cell,) = find(lf.weight_table([[0.5]], "one weight", "", [[change]]), "td")
    assert ("moved" in class_list(cell)) == marked == ("data-delta" in cell[1])


def test_entropy_readout_uses_mha():
    result, _ = compute(mha.EXERCISE_TOKENS)
    readout = text(lf.entropy_readout(result.weights[1]))
    assert f"{mha.entropy([0.5, 0.5]):.4f}" == "1.0000" and "1.0000, 1.0000 bits" in readout


# --- legends and outputs ---------------------------------------------------------

def test_slot_legend_names_each_heads_slots():
    result, _ = compute([[0.0] * 8], 4)
    legend = lf.slot_legend(result)
    assert text(legend) == ("head 0: slots 0-1; head 1: slots 2-3; "
                            "head 2: slots 4-5; head 3: slots 6-7")
    assert [class_list(s) for s in find(legend, "span")] == [["legend-item", f"head-{h}"] for h in range(4)]


def test_one_head_and_a_head_width_of_one_are_said_in_the_singular():
    """Random projections with 1 head: 'the one head reads all 4 slots'; 4 heads of width 1: '1 output'."""
    one, _ = compute([[0.0] * 4], 1, **mha.random_projections(4, 1))
    assert text(lf.slot_legend(one, sliced=False)) == ("Random projections: the one head reads all 4 slots, "
                                                       "through matrices of its own.")
    narrow, _ = compute([[0.0] * 4], 4)
    assert text(find(table(lf.output_tables(narrow), "concatenated heads"), "caption")[0]).startswith(
        "each head's 1 output per token")


def test_section_2s_flow_says_one_token_in_the_singular():
    """The diagram's description with the grid emptied down to one token."""
    from figures import recipe

    desc = recipe.flow_description(mha.attention_costs(1, 4, 2))
    assert desc.startswith("1 token of width 4 (1 × 4) is projected to queries 1 × 4")


def test_output_tables_show_heads_concat_and_mixed_outputs():
    weights = mha.random_projections(4, 2, seed=3)
    result = mha.multi_head_attention(mha.LESSON_TOKENS, 2, **weights)
    tree = lf.output_tables(result)
    check_tree(tree)
    for label, rows in [("concatenated heads", result.concat), ("output after w_o", result.outputs)]:
        cells = [find(tr, "td") for tr in find(find(table(tree, label), "tbody")[0], "tr")]
        assert [float(v) for v in exact_values(table(tree, label))] == [x for row in rows for x in row]
        assert [[text(td) for td in row] for row in cells] == [[f"{x:.4f}" for x in row] for row in rows]
    # the concatenation is each head's outputs side by side, its columns named by head
    concat = table(tree, "concatenated heads")
    assert [text(th) for th in find(concat, "th", scope="col")][1:] == [
        "head 0 out 0", "head 0 out 1", "head 1 out 0", "head 1 out 1"]


def test_patches_carry_exactly_what_the_trees_draw():
    """mhaPatch updates cells in place: its lists must equal the drawn cells and [data-patch] texts."""
    weights = mha.random_projections(8, 4, kv_heads=2, seed=1)
    tokens = [[0.1 * (t + s) for s in range(8)] for t in range(3)]
    before = compute(tokens, 4, kv_heads=2, **weights)
    tokens[1][3] = 2.0
    result, wide = compute(tokens, 4, kv_heads=2, **weights)
    previous = lf.weights_snapshot(*before)
    for tree, patch in [(lf.head_tables(result, wide, previous), lf.head_tables_patch(result, wide, previous)),
                        (lf.output_tables(result), lf.output_tables_patch(result))]:
        cells = [[text(td), td[1]["class"], td[1].get("data-delta", "")] for td in find(tree, "td")]
        # mhaPatch splits each column at newlines: one line per cell
        columns = [patch[name].split("\n") for name in ("text", "class", "delta")]
        assert all(len(column) == len(cells) for column in columns)
        assert cells == [list(c) for c in zip(*columns)]
        # mhaPatch writes each table's data-values from the numbers (boot.js's pythonRepr is repr())
        assert exact_values(tree) == [repr(x) for x in patch["value"]]
        marked = [[text(n), n[1].get("class", "")] for n in nodes(tree) if "data-patch" in n[1]]
        assert marked == patch["marked"]


def test_a_head_tables_patch_prints_mhas_weights_and_a_change_only_where_one_moved():
    """The check above compares tree and patch, which share their formatting code; this one holds the
    patch against mha itself: each weight to 4 decimals, the signed change exactly where
    mha.weight_changes has one and nothing elsewhere (a change in the wrong cell fails here)."""
    tokens = [list(row) for row in mha.LESSON_TOKENS]
    previous = lf.weights_snapshot(*compute(tokens))
    tokens[1][2] = 0.0  # section 4's edit: head 1 moves, head 0 does not
    result, wide = compute(tokens)
    patch, now = lf.head_tables_patch(result, wide, previous), [*result.weights, wide]
    assert patch["text"].split("\n") == [f"{w:.4f}" for weights in now for row in weights for w in row]
    changes = [d for old, new in zip(previous, now) for row in mha.weight_changes(old, new) for d in row]
    assert 0 < sum(1 for d in changes if d) < len(changes)  # some cells moved, some did not
    assert patch["delta"].split("\n") == [f"{d:+.4f}" if d else "" for d in changes]


# (grouped-query sharing and the KV cache: tests/unit/test_kv_cache.py)


# --- every builder ---------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda: lf.token_grid(mha.LESSON_TOKENS, 2), lambda: lf.token_buttons(3),
    lambda: lf.heads_picker(4, 2), lambda: kv.kv_heads_picker(4, 2),
    lambda: lf.slot_legend(compute(mha.LESSON_TOKENS)[0]), lambda: lf.output_tables(compute(mha.LESSON_TOKENS)[0]),
    lambda: lf.head_tables(*compute(mha.LESSON_TOKENS)), lambda: kv.sharing_diagram([0, 0, 1, 1]),
    lambda: kv.model_select(), lambda: kv.kv_cache_fields(mha.MODEL_SHAPES[0], 4096),
    lambda: ["div", {}, *kv.kv_cache_readout(mha.MODEL_SHAPES[4], 4096)], lambda: kv.kv_cache_table(4096),
], ids=lambda b: getattr(b, "__name__", "builder"))
def test_every_builder_returns_a_well_formed_tree(build):
    check_tree(build())


def test_weight_columns_bucket_by_tenths_and_mark_what_moved():
    edges = [0.0, 0.0999, 0.1, 0.5, 0.8999, 0.9, 0.9999, 1.0]
    changes = [[0.0, 0.2, -0.00006, 0.0, 0.0, 0.1, 0.0, -0.5]]
    texts, cells, values, deltas = lf.weight_columns([edges], changes)
    assert [c.split()[1] for c in cells] == ["w0", "w0", "w1", "w5", "w8", "w9", "w9", "w9"]  # 1.0 joins w9
    assert [("moved" in c) for c in cells] == [False, True, True, False, False, True, False, True]
    assert deltas == ["", "+0.2000", "-0.0001", "", "", "+0.1000", "", "-0.5000"]
    assert values == edges  # the weights themselves: a tree writes repr(), a patch sends the number
    assert texts == ["0.0000", "0.0999", "0.1000", "0.5000", "0.8999", "0.9000", "0.9999", "1.0000"]


def test_under_random_projections_nothing_says_a_head_reads_its_own_slots():
    """Identity slices: head 0 reads slots 0-1, and the grid, the legend and the captions say so. Random
    projections: every head reads all four slots through matrices of its own, so none of them names slots."""
    from figures import FIGURES as ALL
    from page import state as figure_state

    for projections, says_slots in (("identity", True), ("random", False)):
        state = figure_state.changed(figure_state.default_state(), projections=projections)
        view = figure_state.compute(state)
        drawn = {fid: text(ALL[fid].build(state, view, None)[0])
                 for fid in ("head-tables", "fig-slot-legend", "token-grid-head")}
        assert ("head 0 (slots 0-1)" in drawn["head-tables"]) is says_slots
        assert ("head 0: slots 0-1" in drawn["fig-slot-legend"]) is says_slots
        assert ("head 1" in drawn["token-grid-head"]) is says_slots  # the grid's bands
        if not says_slots:
            assert "head 0 (all slots, projected)" in drawn["head-tables"]
            assert "each of the 2 heads reads all 4 slots" in drawn["fig-slot-legend"]
            captions = [part for part in ALL["head-tables"].patch(state, view, view)["marked"]]  # a redraw's patch
            assert "head 0 (all slots, projected)" in str(captions) and "slots 0-1" not in str(captions)


def test_a_causal_table_marks_each_key_after_its_query_as_masked_not_as_a_weight_of_zero():
    """Issue 30: under the causal mask token 0 cannot see token 1, so that cell says "masked"; the weights that
    exist stay numbers (token 0's own row is all on itself: 1.00, to the live figure's first 2 decimals)."""
    from figures import FIGURES
    from page import state as figure_state
    state = {**figure_state.default_state(), "causal": True}
    view = figure_state.compute(state)
    tree = FIGURES["head-tables"].build(state, view, None)
    for table in find(tree, "table"):
        rows = [[text(td) for td in find(tr, "td")] for tr in find(find(table, "tbody")[0], "tr")]
        assert rows[0] == ["1.00", "masked"] and rows[1][1] != "masked"
        (cell,) = [td for td in find(table, "td") if text(td) == "masked"]
        assert "masked" in cell[1]["class"].split() and not any(c.startswith("w") for c in cell[1]["class"].split())
    patch = FIGURES["head-tables"].patch(state, view, view)
    assert patch["text"].split("\n")[1::4] == ["masked"] * 3  # head 0, head 1, the one wide head: cell (0, 1)
    assert lf.MASKED == "masked"


# --- one redraw, each weight compared once ---------------------------------------------------------

def test_a_redraw_compares_each_tables_weights_once(monkeypatch):
    """A token edit redraws head-tables (patched) and moved-summary from the same View and the one shown before:
    mha.weight_changes runs once per table (2 heads and the wide head: 3), not once per figure (6)."""
    from figures import FIGURES, exercise, redrawn_by
    from page import state as page_state

    state = page_state.default_state()
    before = page_state.compute(state)
    edited = page_state.with_tokens(state, [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]])
    view = page_state.compute(edited, before)
    calls = []
    real = mha.weight_changes
    monkeypatch.setattr(mha, "weight_changes", lambda *a: calls.append(a) or real(*a))
    exercise.random_sentence(edited)  # its rows are cached by seed: not redrawn with each edit (next test)
    for fid in redrawn_by("numbers"):
        figure = FIGURES[fid]
        (figure.patch or figure.build)(edited, view, before)
    assert len(calls) == 3
    summary = text(FIGURES["moved-summary"].build(edited, view, before))
    assert "head 1: moved, 4 weights" in summary and "head 0: unchanged" in summary  # the first answer, reused


def test_the_second_exercises_rows_depend_on_the_seed_alone():
    """random_rows draws the exercise's own two states (its tokens, 2 heads, no mask, random projections) at the
    reader's seed: the same rows whatever tokens the reader has, other rows at another seed; each computed once."""
    from figures import exercise
    from page import state as page_state

    state = page_state.default_state()
    edited = page_state.with_tokens(state, [[2.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]])
    start, moved = page_state.with_exercise(state, "random")
    by_hand = [page_state.compute(s).result.weights for s in (start, moved)]
    assert exercise.random_rows(edited) == {h: (by_hand[0][h][0], by_hand[1][h][0]) for h in range(2)}
    assert exercise.random_rows(edited) is exercise.random_rows(state)
    assert exercise.random_rows(page_state.changed(state, seed=7)) != exercise.random_rows(state)
