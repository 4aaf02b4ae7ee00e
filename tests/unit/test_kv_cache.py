"""Section 6: the KV cache bill (mha.kv_cache), the published shapes, and the figures that print them.

References: byte counts worked by hand in the comments; the model shapes and parameter
counts worked again here from each model's config.json fields (written below as literals,
the way the hub publishes them); the group figure against mha's own per-head numbers.
"""

import html
import pathlib
import re

import pytest

import mha
from figures import kv
from page import state as figure_state
from trees import find, nodes, text

SECTION = pathlib.Path(__file__).resolve().parents[2] / "site" / "sections" / "sharing.html"

# --- test data ---------------------------------------------------------------

# The config.json fields of each model, as published on the Hugging Face hub.
LLAMA_CONFIGS = {  # Llama-architecture configs: untied embeddings, gated MLP, RMSNorm without bias
    "meta-llama/Llama-2-7b-hf": dict(num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32,
                                     hidden_size=4096, intermediate_size=11008, vocab_size=32000,
                                     max_position_embeddings=4096),
    "meta-llama/Llama-2-70b-hf": dict(num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8,
                                      hidden_size=8192, intermediate_size=28672, vocab_size=32000,
                                      max_position_embeddings=4096),
    "meta-llama/Meta-Llama-3-8B": dict(num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                                       hidden_size=4096, intermediate_size=14336, vocab_size=128256,
                                       max_position_embeddings=8192),
    "meta-llama/Llama-3.1-8B": dict(num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                                    hidden_size=4096, intermediate_size=14336, vocab_size=128256,
                                    max_position_embeddings=131072),
    "meta-llama/Meta-Llama-3-70B": dict(num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8,
                                        hidden_size=8192, intermediate_size=28672, vocab_size=128256,
                                        max_position_embeddings=8192),
    "mistralai/Mistral-7B-v0.1": dict(num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                                      hidden_size=4096, intermediate_size=14336, vocab_size=32000,
                                      max_position_embeddings=32768, sliding_window=4096),
}


def llama_params(c):
    """Embeddings and lm_head (V x d each), per layer q, o (d x d), k, v (d x kv*hw), a gated MLP
    (3 x d x I) and two norms (2d), one final norm (d)."""
    d, hw = c["hidden_size"], c["hidden_size"] // c["num_attention_heads"]
    kv_width = c["num_key_value_heads"] * hw
    layer = 2 * d * d + 2 * d * kv_width + 3 * d * c["intermediate_size"] + 2 * d
    return 2 * c["vocab_size"] * d + c["num_hidden_layers"] * layer + d


# tiiuae/falcon-7b: n_layer 32, n_head 71, multi_query true, hidden_size 4544, vocab_size 65024, tied
# embeddings, a 4d MLP without a gate, one LayerNorm with bias per layer (parallel attention):
#   per layer: fused qkv 4544 x (4544 + 2 x 64) + dense 4544^2 + MLP 2 x 4544 x 18176 + norm 2 x 4544
FALCON_PARAMS = 65024 * 4544 + 32 * (4544 * 4672 + 4544 * 4544 + 2 * 4544 * 18176 + 2 * 4544) + 2 * 4544
# Qwen/Qwen2.5-7B: 28 layers, 28 heads, 4 kv heads, hidden_size 3584, intermediate_size 18944,
# vocab_size 152064, untied, biases on q, k and v:
#   per layer: q 3584^2 + 3584, k and v 3584 x 512 + 512 each, o 3584^2, MLP 3 x 3584 x 18944, norms 2 x 3584
QWEN_PARAMS = (2 * 152064 * 3584 + 3584
               + 28 * (2 * 3584 * 3584 + 3584 + 2 * (3584 * 512 + 512) + 3 * 3584 * 18944 + 2 * 3584))

LLAMA_3_8B = figure_state.model_shape("Llama-3-8B")
KIB, MIB, GIB = 2**10, 2**20, 2**30


def shape(name):
    return figure_state.model_shape(name)


def fields_of(tree):
    return {n[1]["id"]: n[1]["value"] for n in find(tree, "input")}


# --- mha: the bill --------------------------------------------------------------

@pytest.mark.parametrize("layers, kv_heads, seq_len, head_width, bytes_per_value, expected", [
    # Llama-2-7B, 4096 tokens, fp16: 2 * 32 * 32 * 4096 * 128 * 2 = 2 GiB
    (32, 32, 4096, 128, 2, 2 * GIB),
    # Llama-3-8B shares 8 kv heads: a quarter of that
    (32, 8, 4096, 128, 2, 512 * MIB),
    # one layer, one kv head, one token, width 1, one byte: keys and values -> 2 bytes
    (1, 1, 1, 1, 1, 2),
])
def test_kv_cache_bytes_is_the_product_formula(layers, kv_heads, seq_len, head_width, bytes_per_value, expected):
    assert mha.kv_cache_bytes(layers, kv_heads, seq_len, head_width, bytes_per_value) == expected


def test_kv_cache_bill_reports_the_saving_of_shared_heads():
    bill = mha.kv_cache_bill(32, 32, 8, 4096, 128)
    assert (bill.bytes, bill.full_bytes, bill.saving) == (512 * MIB, 2 * GIB, 0.75)
    assert mha.format_bytes(bill.bytes) == "512.0 MiB"
    assert mha.format_bytes(bill.full_bytes) == "2.00 GiB"
    assert mha.format_bytes(512) == "512 B"


def test_llama_3_8b_costs_128_kib_a_token_and_16_gib_at_128k():
    """2 x 32 layers x 8 kv heads x 128 x 2 bytes = 131072 bytes = 128 KiB a token;
    x 131072 tokens = 2**17 x 2**17 = 2**34 bytes = 16 GiB."""
    bill = mha.model_bill(LLAMA_3_8B, 131072)
    assert bill.per_token == 131072 == 128 * KIB
    assert (bill.bytes, bill.tokens) == (16 * GIB, 131072)
    assert mha.format_bytes(bill.per_token) == "128.0 KiB" and mha.format_bytes(bill.bytes) == "16.00 GiB"


def test_a_batch_multiplies_the_cache_but_not_the_cost_of_one_token():
    """8 conversations of 8192 tokens: 8 x 2**30 bytes; one token of one conversation stays 128 KiB."""
    bill = mha.model_bill(LLAMA_3_8B, 8192, batch=8)
    assert (bill.bytes, bill.full_bytes, bill.per_token) == (8 * GIB, 32 * GIB, 128 * KIB)


@pytest.mark.parametrize("seq_len, kept, expected", [
    (32768, 4096, 512 * MIB),   # 2 x 32 x 8 x 4096 x 128 x 2 = 2**29: the window, not the sequence
    (4096, 4096, 512 * MIB),    # exactly the window
    (1000, 1000, 1000 * 128 * KIB),  # shorter than the window: every token kept
])
def test_a_sliding_window_caps_the_tokens_kept(seq_len, kept, expected):
    bill = mha.model_bill(shape("Mistral-7B-v0.1"), seq_len)
    assert (bill.tokens, bill.bytes) == (kept, expected)
    assert bill.full_bytes == 4 * expected  # 32 kv heads instead of 8, over the same kept tokens


def test_times_the_params_divides_the_published_parameter_counts():
    """Llama-3-70B's 70,553,706,496 parameters over Llama-2-7B's 6,738,415,616: 10.47, 'about 10 times'."""
    big, small = (figure_state.model_shape(name) for name in ("Llama-3-70B", "Llama-2-7B"))
    assert big.times_the_params(small) == 70_553_706_496 / 6_738_415_616
    assert round(big.times_the_params(small), 2) == 10.47 and round(small.times_the_params(big), 3) == 0.096
    custom = mha.ModelShape("your own shape", *small.counts)
    with pytest.raises(ValueError, match="^the parameter count of your own shape is not known$"):
        custom.times_the_params(small)


def test_the_weights_take_params_times_two_bytes_in_bf16():
    """8,030,261,248 parameters x 2 bytes = 16,060,522,496 bytes: about 16 GB, 14.96 GiB."""
    assert mha.weights_bytes(LLAMA_3_8B) == 16_060_522_496
    assert mha.format_bytes(mha.weights_bytes(LLAMA_3_8B)) == "14.96 GiB"
    assert mha.weights_bytes(mha.ModelShape("custom", 1, 1, 1, 1)) is None


@pytest.mark.parametrize("seq_len, beyond", [(8192, False), (8193, True), (131072, True)])
def test_a_sequence_beyond_the_context_is_flagged(seq_len, beyond):
    assert mha.beyond_context(LLAMA_3_8B, seq_len) is beyond
    assert mha.beyond_context(shape("Llama-3.1-8B"), seq_len) is False
    assert mha.beyond_context(mha.ModelShape("custom", 1, 1, 1, 1), 10**9) is False


@pytest.mark.parametrize("call, words", [
    (lambda: mha.kv_cache_bill(32, 32, 8, 4096, 128, batch=0), "batch must be at least 1"),
    (lambda: mha.kv_cache_bill(32, 32, 8, 4096, 128, window=0), "window must be at least 1"),
    (lambda: mha.kv_cache_bill(32, 32, 5, 4096, 128), "32 query heads are not divisible by 5"),
])
def test_bad_bills_are_refused_with_a_sentence(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# --- mha: the published shapes ---------------------------------------------------

def test_model_shapes_divide_evenly():
    for s in mha.MODEL_SHAPES:
        assert s.heads % s.kv_heads == 0, s.name


@pytest.mark.parametrize("source", LLAMA_CONFIGS)
def test_llama_and_mistral_shapes_are_their_configs(source):
    """Layers, heads, kv heads, head width, context, window and the parameter count, from config.json."""
    c = LLAMA_CONFIGS[source]
    (s,) = [s for s in mha.MODEL_SHAPES if s.source == source]
    assert s.counts == (c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"],
                        c["hidden_size"] // c["num_attention_heads"])
    assert (s.context, s.window) == (c["max_position_embeddings"], c.get("sliding_window"))
    assert s.params == llama_params(c)


def test_falcon_and_qwen_shapes_and_parameter_counts():
    falcon, qwen = shape("Falcon-7B"), shape("Qwen2.5-7B")
    assert (falcon.counts, falcon.source, falcon.params) == ((32, 71, 1, 64), "tiiuae/falcon-7b", FALCON_PARAMS)
    assert (qwen.counts, qwen.context, qwen.params) == ((28, 28, 4, 128), 131072, QWEN_PARAMS)


def test_every_shape_names_its_config():
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+", s.source) for s in mha.MODEL_SHAPES)
    assert len({s.name for s in mha.MODEL_SHAPES}) == len(mha.MODEL_SHAPES)


# --- figures: who shares, and what --------------------------------------------------

def test_sharing_diagram_groups_query_heads_by_kv_head():
    result = mha.multi_head_attention([[0.0] * 8], 4, kv_heads=2)
    diagram = kv.sharing_diagram(result.kv_head_of)
    groups = find(diagram, "p", **{"class": "kv-group"})
    assert [text(g) for g in groups] == ["key/value head 0: query head 0, query head 1",
                                         "key/value head 1: query head 2, query head 3"]
    assert text(find(diagram, "figcaption")[0]).startswith("grouped-query")


@pytest.mark.parametrize("kv_head_of, name", [([0, 1], "plain multi-head"), ([0, 0, 0], "multi-query")])
def test_sharing_diagram_names_the_variant(kv_head_of, name):
    assert text(find(kv.sharing_diagram(kv_head_of), "figcaption")[0]).startswith(name)


def test_kv_heads_picker_offers_the_divisors_of_the_heads():
    assert [text(o) for o in find(kv.kv_heads_picker(8, 2), "option")] == ["1", "2", "4", "8"]


def shared_state(heads=4, kv_heads=2, seed=3):
    s = figure_state.with_heads(figure_state.with_width(figure_state.default_state(), 8), heads)
    return figure_state.changed(figure_state.with_kv_heads(s, kv_heads), seed=seed)


def vector_text(vector):
    return "[" + ", ".join(f"{x:.4f}" for x in vector) + "]"


def test_a_group_shows_one_set_of_keys_and_values_and_each_heads_own_queries():
    """4 query heads, 2 kv heads, random projections (seed 3): heads 0 and 1 read key/value head 0."""
    state = shared_state()
    result = figure_state.compute(state).result
    independent = mha.multi_head_attention(state["tokens"], 4, kv_heads=2,
                                           **mha.random_projections(8, 4, kv_heads=2, seed=3))
    figure = kv.group_figure(state, result)
    tables = find(kv.group_tables(result), "table")
    assert [t[1]["aria-label"] for t in tables] == ["query head 0 and key/value head 0",
                                                    "query head 1 and key/value head 0"]
    columns = {h: {name: [text(c) for c in find(t, "td") if name in c[1]["class"].split()]
                   for name in ("kv-query", "kv-key", "kv-value")} for h, t in enumerate(tables)}
    assert columns[0]["kv-key"] == columns[1]["kv-key"] == [vector_text(k) for k in independent.key_heads[0]]
    assert columns[0]["kv-value"] == columns[1]["kv-value"] == [vector_text(v) for v in independent.value_heads[0]]
    for h in (0, 1):
        assert columns[h]["kv-query"] == [vector_text(q) for q in independent.query_heads[h]]
    assert columns[0]["kv-query"] != columns[1]["kv-query"]
    assert "random matrices (seed 3)" in text(figure)
    assert "query heads 0, 1" in text(find(figure, "figcaption")[0])
    assert [text(th) for th in find(tables[0], "th")][2:4] == ["keys (shared)", "values (shared)"]


def test_identity_slices_say_that_sharing_would_switch_them():
    result = figure_state.compute(figure_state.default_state()).result
    figure = kv.group_figure(figure_state.default_state(), result)
    assert "Fewer key/value heads switch on random projections" in text(figure)
    assert not find(figure, "figcaption")  # the row's sentence says query head 0 reads it alone
    # nothing is shared: the headers do not say it is
    assert [text(th) for th in find(find(kv.group_tables(result), "table")[0], "th")][2:4] == ["keys", "values"]


def test_a_large_group_is_cut_to_what_a_reader_can_read():
    state = figure_state.changed(shared_state(heads=8, kv_heads=1), tokens=[[0.5] * 8] * 6)
    result = figure_state.compute(state).result
    figure, tables = kv.group_figure(state, result), kv.group_tables(result)
    assert len(find(tables, "table")) == kv.GROUP_HEADS_SHOWN
    assert len(find(find(tables, "table")[0], "tbody")[0][2:]) == kv.GROUP_TOKENS_SHOWN
    assert "(4 more query heads read it too.)" in text(figure)


# --- figures: the calculator -----------------------------------------------------------

def test_kv_cache_readout_for_llama_3_8b():
    """Per token 2**17 bytes; x 8192 tokens = 2**30 = 1.00 GiB; 4 x that unshared; the weights 16,060,522,496
    bytes; together 17,134,264,320."""
    readout = kv.kv_cache_readout(LLAMA_3_8B, 8192)
    values = [n for n in nodes(readout) if "data-value" in n[1]]
    assert [float(n[1]["data-value"]) for n in values] == [2**17, 2**30, 2**32, 0.75, 16_060_522_496,
                                                           16_060_522_496 + 2**30]
    assert [text(n) for n in values] == ["128.0 KiB", "1.00 GiB", "4.00 GiB", "75.0%", "14.96 GiB", "15.96 GiB"]
    assert text(find(readout, "p", **{"class": "kv-warning"})) == ""
    assert "meta-llama/Meta-Llama-3-8B" in text(find(readout, "caption"))


def test_the_bills_section_6s_question_compares_wait_for_its_check():
    """Review item 15: picking Llama-2-7B showed 512.0 KiB a token before Check. The two models the question names
    get a note, and their bill the class kv.css hides until then; any other model's bill shows at once."""
    assert figure_state.model_shape("Llama-2-7B").kv_heads == 32 and kv.QUESTION_MODELS == ("Llama-2-7B", "Llama-3-70B")
    for name in kv.QUESTION_MODELS:
        readout = kv.kv_cache_readout(figure_state.model_shape(name), 4096)
        assert find(readout, "table")[0][1]["class"] == "figure-table kv-bill held"
        assert text(find(readout, "p", **{"class": "note kv-held"})) == (
            f"{name}'s bill waits for your answer to the question above.")
    readout = kv.kv_cache_readout(LLAMA_3_8B, 8192)
    assert find(readout, "table")[0][1]["class"] == "figure-table kv-bill"
    assert not find(readout, "p", **{"class": "note kv-held"})
    css = (pathlib.Path(kv.__file__).parents[1] / "styles" / "kv.css").read_text()
    assert '.figure-panel:has([data-after="sharing"][hidden]) .kv-bill.held { display: none; }' in css


def test_the_readout_warns_beyond_the_context_and_counts_the_batch():
    """131072 tokens x 2 conversations: 2 x 16 GiB = 32 GiB, and 131072 > Llama-3-8B's 8192."""
    readout = kv.kv_cache_readout(LLAMA_3_8B, 131072, 2, 2)
    assert "32.00 GiB" in text(readout) and "2 conversations" in text(readout)
    assert text(find(readout, "p", **{"class": "kv-warning"})).startswith(
        "131,072 tokens is more than the 8,192 that Llama-3-8B was built for")
    assert text(find(kv.kv_cache_readout(shape("Llama-3.1-8B"), 131072), "p", **{"class": "kv-warning"})) == ""


def test_the_readout_names_the_sliding_window():
    readout = kv.kv_cache_readout(shape("Mistral-7B-v0.1"), 32768)
    assert "4,096 tokens (the last 4,096 of 32,768: a sliding window)" in text(readout)
    assert "512.0 MiB" in text(readout)


def test_a_shape_of_your_own_has_no_weights_to_show():
    readout = kv.kv_cache_readout(mha.ModelShape("your own shape", 2, 4, 2, 8), 10)
    assert "not known for your own shape" in text(readout)


def test_a_count_of_one_is_said_in_the_singular():
    """Falcon-7B keeps 1 key/value head; int8 keys take 1 byte; a first token is 1 token; one query head is one."""
    falcon = kv.kv_cache_readout(shape("Falcon-7B"), 1, 1)
    assert "× 32 layers × 1 key/value head × 64 numbers × 1 byte = 4.0 KiB" in text(falcon)
    assert "4.0 KiB × 1 token × 1 conversation" in text(falcon) and "Falcon-7B" in text(find(falcon, "caption"))
    assert text(find(falcon, "caption")).endswith(": 1 token, 1 conversation")
    tiny = kv.kv_cache_readout(mha.ModelShape("your own shape", 1, 1, 1, 1), 3, 0.5)
    assert "2 (keys and values) × 1 layer × 1 key/value head × 1 number × 0.5 bytes = 1 B" in text(tiny)
    assert text(find(kv.kv_cache_table(1, 1, 1), "caption")).startswith("1 token × 1 conversation, 1 byte per number")
    assert kv.sharing_name(1, 1) == "plain multi-head: the one query head has its own keys and values"
    state = figure_state.changed(figure_state.with_width(figure_state.default_state(), 16), tokens=[[0.5] * 16])
    caption = text(find(kv.group_figure(state, figure_state.compute(state).result), "figcaption")[0])
    assert caption == "The tables show the first 1 token and 4 numbers of each vector."  # a head alone: nothing else


def test_kv_cache_table_has_one_row_per_model_with_its_config_and_flags():
    tree = kv.kv_cache_table(8192, 2, 1)
    rows = find(find(tree, "tbody")[0], "tr")
    assert [text(find(r, "th")[0]) for r in rows] == [f"{s.name} {s.source}" for s in mha.MODEL_SHAPES]
    by_name = {find(r, "th")[0][2]: [text(c) for c in find(r, "td")] for r in rows}
    assert by_name["Llama-2-70B"][:2] == ["80", "64 / 8"]
    assert by_name["Llama-2-70B"][5] == "2.50 GiB beyond context"  # 2 x 80 x 8 x 8192 x 128 x 2; context 4096
    assert by_name["Llama-3-8B"][4:8] == ["128.0 KiB", "1.00 GiB", "75.0%", "14.96 GiB"]
    assert by_name["Mistral-7B-v0.1"][3] == "32768 window 4096"
    assert by_name["Mistral-7B-v0.1"][5] == "512.0 MiB"
    beyond = [name for name, cells in by_name.items() if cells[5].endswith("beyond context")]
    assert beyond == [s.name for s in mha.MODEL_SHAPES if s.context < 8192]


def test_model_select_lists_the_presets_and_a_custom_shape():
    options = find(kv.model_select("Mistral-7B-v0.1"), "option")
    assert [o[1]["value"] for o in options] == [s.name for s in mha.MODEL_SHAPES] + ["custom"]
    assert [text(o) for o in options if "selected" in o[1]] == ["Mistral-7B-v0.1"]


def test_kv_fields_round_trip_through_read_kv_fields():
    s = shape("Llama-2-70B")
    fields = fields_of(kv.kv_cache_fields(s, 4096, 2, 3))
    assert fields["kv-batch"] == "3"
    assert kv.read_kv_fields(fields) == (mha.ModelShape("custom", *s.counts), 4096, 2.0, 3)


@pytest.mark.parametrize("field, value, message", [
    ("kv-layers", "0", "layers must be between"), ("kv-query-heads", "abc", "query heads"),
    ("kv-kv-heads", "3", "not divisible"), ("kv-head-width", "-1", "head width"),
    ("kv-seq-len", "<script>", "whole number"), ("kv-seq-len", "99999999999", "sequence length"),
    ("kv-batch", "0", "batch must be between"), ("kv-batch", "", "batch"),
    ("kv-bytes", "nan", "finite"), ("kv-bytes", "-2", "at least 0.125"), ("kv-bytes", "1e-9", "bytes per number must be at least"),
])
def test_read_kv_fields_rejects_bad_input(field, value, message):
    fields = fields_of(kv.kv_cache_fields(mha.MODEL_SHAPES[0], 10))
    with pytest.raises(ValueError, match=message):
        kv.read_kv_fields({**fields, field: value})


# --- section 6's prose: every number from mha ------------------------------------------

def test_the_prose_numbers_are_mhas():
    """Worked by hand: 128 KiB a token; 8192 x 128 KiB = 1 GiB (4 GiB with 32 kv heads); 15 x 1 GiB (the
    fewest caches past the weights' 14.96 GiB, test_caches_outweigh_the_weights_from_the_fifteenth_conversation);
    Mistral keeps 4096 tokens: 512 MiB instead of 32768 x 128 KiB = 4 GiB. Token counts with separators, as the
    KV warning says them."""
    prose = {key: make() for key, make in kv.PROSE.items()}
    assert prose == {
        "kv-model": "Llama-3-8B", "kv-model-kv-heads": "8", "kv-model-heads": "32", "kv-per-token": "128.0 KiB",
        "kv-context": "8,192", "kv-cache-context": "1.00 GiB", "kv-cache-unshared": "4.00 GiB",
        "kv-weights": "14.96 GiB", "kv-batch": "15", "kv-cache-batch": "15.00 GiB",
        "kv-window-model": "Mistral-7B-v0.1", "kv-window": "4,096", "kv-window-context": "32,768",
        "kv-cache-windowed": "512.0 MiB", "kv-cache-unwindowed": "4.00 GiB",
    }


def test_caches_outweigh_the_weights_from_the_fifteenth_conversation():
    """Llama-3-8B in bf16: 8,030,261,248 parameters x 2 = 16,060,522,496 B of weights; one cache of 8192 tokens is
    2 x 32 layers x 8 kv heads x 128 x 2 bytes x 8192 = 1,073,741,824 B (1 GiB). 14 caches are 15,032,385,536 B,
    under the weights; 15 are 16,106,127,360 B, over them."""
    shape = next(s for s in mha.MODEL_SHAPES if s.name == "Llama-3-8B")
    assert mha.caches_outweigh_weights(shape, 8192) == 15
    assert 14 * 1_073_741_824 < 16_060_522_496 < 15 * 1_073_741_824
    assert mha.caches_outweigh_weights(shape, 8192, bytes_per_weight=1) == 8  # int8: 7.48 GiB, so 8 caches
    with pytest.raises(ValueError, match="parameter count is not known"):
        mha.caches_outweigh_weights(mha.ModelShape("custom", 1, 1, 1, 1), 10)


def test_the_section_types_no_number_of_its_own():
    """Every quantity in section 6's prose is a <!--value:KEY--> mark that PROSE fills; the digits left
    are the formula's closing factor 2 (a key and a value), the heading's 6, and the paragraph that cites
    published results (its figures are the papers', not the page's)."""
    source = SECTION.read_text()
    cited = re.search(r"<p><strong>What sharing costs.</strong>.*?</p>", source, flags=re.S)
    assert cited and "Ainslie et al. (2023)" in cited.group() and "5%" in cited.group()
    source = source.replace(cited.group(), "")
    marks = set(re.findall(r"<!--value:([a-z0-9-]+)-->", source))
    assert marks and marks <= set(kv.PROSE)
    prose = html.unescape(re.sub(r"<!--.*?-->|<div .*?</div>|<[^>]+>", " ", source, flags=re.S))
    numbers = re.findall(r"(?<![\w.])\d[\d.,]*", prose)
    assert sorted(set(numbers)) == ["2", "6."], numbers


@pytest.mark.parametrize("n, text", [
    (0.25, "0.25 B"),            # one layer, head and number at one bit: 2 x 0.125 bytes
    (6.5, "6.5 B"), (512, "512 B"), (1000, "1,000 B"),
    (100_000 * 2**30, "97.66 TiB"),  # 100,000 conversations of 1 GiB each: 100,000 / 1,024 TiB
    (3 * 2**50, "3.00 PiB"),
])
def test_format_bytes_reads_well_from_a_fraction_of_a_byte_to_pebibytes(n, text):
    assert mha.format_bytes(n) == text
