"""Section 7 figures as trees: which query heads share a key/value head, and the KV-cache bill.

Byte counts come from mha.kv_cache_bill and are printed by mha.format_bytes;
this module only arranges them.
"""

import mha
from page.dom import band_class, body_row, classes, count_select, header_row, joined, number_text, select, table
from page.state import CUSTOM_MODEL, MODEL_NAMES

SEQ_LEN_CAP = 10_000_000  # a sequence-length field above this is a typo, not a model


# --- grouped-query sharing -------------------------------------------------

def kv_heads_picker(heads, kv_heads):
    """<select id='kv-heads'> labelled 'key/value heads', offering mha.kv_head_choices(heads)."""
    return count_select("kv-heads", "key/value heads", mha.kv_head_choices(heads), kv_heads)


def sharing_name(heads, kv_heads):
    """'multi-head', 'multi-query' or 'grouped-query', with the counts."""
    if kv_heads == heads:
        return f"plain multi-head: each of the {heads} query heads has its own keys and values"
    if kv_heads == 1:
        return f"multi-query: all {heads} query heads share one key/value head"
    return f"grouped-query: {heads} query heads share {kv_heads} key/value heads, {heads // kv_heads} each"


def sharing_diagram(kv_head_of):
    """kv_head_of: per query head, its key/value head (MultiHeadResult.kv_head_of) -> <figure>.

    One line per key/value head: its name, then the query heads that read it.
    """
    groups = {}
    for h, g in enumerate(kv_head_of):
        groups.setdefault(g, []).append(h)
    rows = [["p", {"class": "kv-group", "data-kv-head": str(g)}, ["strong", {}, f"key/value head {g}"], ": ",
             *joined([["span", classes("query-head", band_class(h)), f"query head {h}"] for h in members], ", ")]
            for g, members in sorted(groups.items())]
    return ["figure", {"class": "kv-sharing"}, *rows,
            ["figcaption", {}, sharing_name(len(kv_head_of), len(groups))]]


# --- the KV-cache calculator -----------------------------------------------

def model_select(selected=None):
    """<select id='kv-model'> of mha.MODEL_SHAPES by name, then 'your own shape' (value 'custom')."""
    options = [(name, name) for name in MODEL_NAMES] + [("custom", CUSTOM_MODEL)]
    return select("kv-model", options, selected if selected in MODEL_NAMES else "custom", **{"aria-label": "model"})


def kv_calculator(kv):
    """The model picker and the fields (state.KV: shape, sequence length, bytes per number): children."""
    return [["label", {"class": "control"}, "model ", model_select(kv.shape.name)],
            ["div", {"id": "kv-fields"}, kv_cache_fields(*kv)]]


KV_FIELDS = (  # (id, label, ModelShape field or None)
    ("kv-layers", "layers", "layers"),
    ("kv-query-heads", "query heads", "heads"),
    ("kv-kv-heads", "key/value heads", "kv_heads"),
    ("kv-head-width", "head width", "head_width"),
    ("kv-seq-len", "sequence length (tokens)", None),
    ("kv-bytes", "bytes per number", None),
)


def kv_cache_fields(shape, seq_len, bytes_per_value=2):
    """Labelled inputs for a model shape, the sequence length and bytes per number."""
    values = {"kv-seq-len": seq_len, "kv-bytes": bytes_per_value}
    rows = [["label", {"for": fid}, label, " ",
             ["input", {"id": fid, "type": "text", "inputmode": "numeric", "size": "8",
                        "value": number_text(getattr(shape, field) if field else values[fid])}]]
            for fid, label, field in KV_FIELDS]
    return ["div", {"class": "kv-fields"}, *rows]


def read_kv_fields(texts):
    """{field id: text} -> (ModelShape('custom', ...), seq_len, bytes_per_value), checked by mha.parse_*."""
    def count(fid, label, high):
        return mha.parse_count(texts.get(fid, ""), label, 1, high)
    shape = mha.ModelShape("custom", count("kv-layers", "layers", 10_000),
                           count("kv-query-heads", "query heads", 10_000),
                           count("kv-kv-heads", "key/value heads", 10_000),
                           count("kv-head-width", "head width", 100_000))
    seq_len = count("kv-seq-len", "sequence length", SEQ_LEN_CAP)
    bytes_per_value = mha.parse_number(texts.get("kv-bytes", ""), "bytes per number")
    mha.kv_cache_bill(shape.layers, shape.heads, shape.kv_heads, seq_len, shape.head_width, bytes_per_value)
    return shape, seq_len, bytes_per_value


def kv_cache_readout(shape, seq_len, bytes_per_value=2):
    """The bill for one model: the formula with its numbers, the cache, the unshared cache, the saving."""
    bill = _bill(shape, seq_len, bytes_per_value)
    formula = (f"2 (keys and values) × {shape.layers} layers × {shape.kv_heads} key/value heads × "
               f"{seq_len} tokens × {shape.head_width} numbers × {bytes_per_value:g} bytes")
    rows = [body_row("KV cache", [["td", {}, formula, " = ", ["strong", {"data-value": repr(bill.bytes)},
                                                               mha.format_bytes(bill.bytes)]]]),
            body_row(f"with one key/value head per query head ({shape.heads})",
                     [["td", {"data-value": repr(bill.full_bytes)}, mha.format_bytes(bill.full_bytes)]]),
            body_row("saved by sharing keys and values",
                     [["td", {"data-value": repr(bill.saving)}, f"{bill.saving:.1%}"]])]
    return ["table", {"class": "figure-table kv-bill", "aria-label": f"KV cache bill for {shape.name}"},
            ["caption", {}, f"{shape.name}, {seq_len} tokens"], ["tbody", {}, *rows]]


def kv_cache_table(seq_len, bytes_per_value=2, shapes=mha.MODEL_SHAPES):
    """<table aria-label='KV cache by model'>: one row per model shape at seq_len tokens."""
    head = header_row("model", ["layers", "query heads", "kv heads", "head width",
                                "KV cache", "unshared", "saved"])
    rows = [_model_row(shape, _bill(shape, seq_len, bytes_per_value)) for shape in shapes]
    caption = f"one sequence of {seq_len} tokens, {bytes_per_value:g} bytes per number"
    return table("KV cache by model", caption, head, rows, "kv-models")


def _model_row(shape, bill):
    counts = [["td", {"class": "num"}, str(x)] for x in shape[1:]]
    money = [["td", {"class": "num", "data-value": repr(x)}, mha.format_bytes(x)] for x in bill[:2]]
    return body_row(shape.name, [*counts, *money,
                                 ["td", {"class": "num", "data-value": repr(bill.saving)}, f"{bill.saving:.1%}"]])


def _bill(shape, seq_len, bytes_per_value):
    return mha.kv_cache_bill(shape.layers, shape.heads, shape.kv_heads, seq_len, shape.head_width,
                             bytes_per_value)
