"""Section 6 figures as trees: which query heads share a key/value head, what they share, and the KV bill.

The queries, keys and values come from the page's mha.MultiHeadResult (query_heads,
key_heads, value_heads); byte counts from mha.model_bill / kv_cache_bill and
mha.weights_bytes, printed by mha.format_bytes. This module only arranges them.
"""

import mha
from figures.registry import Figure
from page.dom import (band_class, body_row, classes, count_select, counted, fixed, header_row, joined, number_text,
                      select, slot_range, table)
from page.state import CUSTOM_MODEL, MODEL_NAMES, model_shape, reads_slices

SEQ_LEN_CAP = 10_000_000  # a sequence-length field above this is a typo, not a model
BATCH_CAP = 100_000       # conversations served at once
GROUP_HEADS_SHOWN = 4     # query heads drawn beside their shared key/value head
GROUP_TOKENS_SHOWN = 4    # tokens per table in that figure
GROUP_NUMBERS_SHOWN = 4   # numbers per vector in that figure
WEIGHT_BYTES = 2          # the weights in bf16
PROSE_MODEL = "Llama-3-8B"          # section 6's worked bill
PROSE_WINDOW_MODEL = "Mistral-7B-v0.1"
QUESTION_MODELS = ("Llama-2-7B", "Llama-3-70B")  # section 6's question compares their bills: theirs wait for Check


# --- grouped-query sharing -------------------------------------------------

def kv_heads_picker(heads, kv_heads):
    """<select id='kv-heads'> labelled 'key/value heads', offering mha.kv_head_choices(heads)."""
    return count_select("kv-heads", "key/value heads", mha.kv_head_choices(heads), kv_heads)


def sharing_name(heads, kv_heads):
    """'multi-head', 'multi-query' or 'grouped-query', with the counts."""
    if kv_heads == heads == 1:
        return "plain multi-head: the one query head has its own keys and values"
    if kv_heads == heads:
        return f"plain multi-head: {heads} query heads, nothing shared"
    if kv_heads == 1:
        return f"multi-query: a single key/value head serves all {heads} query heads"
    return (f"grouped-query: {heads} query heads share {kv_heads} key/value heads, "
            f"{mha.group_size(heads, kv_heads)} each")


def sharing_diagram(kv_head_of):
    """kv_head_of: per query head, its key/value head (MultiHeadResult.kv_head_of) -> <figure>.

    One line per key/value head: its name, then the query heads that read it.
    """
    groups = _groups(kv_head_of)
    rows = [["p", {"class": "kv-group", "data-kv-head": str(g)}, ["strong", {}, f"key/value head {g}"], ": ",
             *joined([["span", classes("query-head", band_class(h)), f"query head {h}"] for h in members], ", ")]
            for g, members in sorted(groups.items())]
    return ["figure", {"class": "kv-sharing"}, *rows,
            ["figcaption", {}, sharing_name(len(kv_head_of), len(groups))]]


def _groups(kv_head_of):
    groups = {}
    for h, g in enumerate(kv_head_of):
        groups.setdefault(g, []).append(h)
    return groups


def projections_note(state, result):
    """Why sharing runs on random projections (state.check_sharing), in the state's own numbers."""
    heads, kv_heads = len(result.kv_head_of), len(set(result.kv_head_of))
    if heads == 1:
        return "One query head has nobody to share with: pick more query heads."
    first, second = (slot_range(*s) for s in mha.head_slots(result.width, heads)[:2])
    if kv_heads < heads:
        return (f"Sharing is on, so every head projects the tokens with random matrices (seed {state['seed']}). "
                f"With identity slices a shared key/value head would be query head 0's {first}, and query "
                f"head 1 would score its own {second} against them: numbers without a meaning.")
    if reads_slices(state):
        return ("Fewer key/value heads switch on random projections, so a shared key sees the whole token, not "
                "one head's slots.")
    return "Each query head has keys and values of its own: choose fewer key/value heads to see a group."


ROW_W, ROW_STEP, ROW_TOP = 320, 34, 18  # the cached-row picture, in viewBox units: width, one query head's row


def cached_row_weights(result, members):
    """{query head: the weight the newest token's query gives token 0's cached key} for a group's heads."""
    return {h: result.weights[h][-1][0] for h in members}


def cached_row_picture(result, members):
    """One cached row (token 0's key and value in key/value head 0) on the right, the group's query heads on the
    left, a line from each to it labelled with its weight: aria-hidden, the sentence under it says the numbers."""
    weights = cached_row_weights(result, members)
    height = ROW_TOP + ROW_STEP * len(members) + 4
    middle = ROW_TOP + ROW_STEP * len(members) / 2
    children = [["text", {"x": 0, "y": 11, "class": "kv-row-heading"}, "newest token's query"],
                ["text", {"x": ROW_W, "y": 11, "class": "kv-row-heading", "text-anchor": "end"}, "cache"],
                ["g", {"class": "kv-row-cache"},
                 ["rect", {"x": 214, "y": round(middle - 20, 1), "width": 104, "height": 40, "rx": 4}],
                 ["text", {"x": 266, "y": round(middle - 4, 1), "text-anchor": "middle"}, "token 0's key"],
                 ["text", {"x": 266, "y": round(middle + 12, 1), "text-anchor": "middle"}, "and value"]]]
    for i, h in enumerate(members):
        y = ROW_TOP + ROW_STEP * i + ROW_STEP / 2
        band = band_class(h)
        children.append(["g", classes("kv-row-query", band),
                         ["rect", {"x": 0, "y": round(y - 12, 1), "width": 96, "height": 24, "rx": 4}],
                         ["text", {"x": 48, "y": round(y + 4, 1), "text-anchor": "middle"}, f"query head {h}"],
                         ["line", {"x1": 96, "y1": y, "x2": 214, "y2": round(middle, 1)}],
                         ["text", {"x": 150, "y": round((y + middle) / 2 - 4, 1), "class": "kv-row-weight",
                                   "text-anchor": "middle"}, f"{weights[h]:.2f}"]])
    return ["svg", {"class": "kv-row-picture", "viewBox": f"0 0 {ROW_W} {height:g}", "aria-hidden": "true",
                    "focusable": "false"}, *children]


def cached_row_sentence(result, members):
    """What the picture shows, with the numbers now: who reads token 0's cached row, and how much each weighs it."""
    weights = cached_row_weights(result, members)
    newest = len(result.weights[0]) - 1
    if len(members) == 1:
        return (f"Query head {members[0]} alone reads key/value head 0's cached row for token 0; token {newest}'s "
                f"query gives it {weights[members[0]]:.2f}.")
    names = ", ".join(map(str, members[:-1])) + f" and {members[-1]}"
    given = ", ".join(f"{weights[h]:.2f} in head {h}" for h in members)
    queries = {tuple(result.query_heads[h][newest]) for h in members}
    why = "Their queries differ, so each weighs it on its own" if len(queries) > 1 else "Their queries are the same here"
    return (f"Query heads {names} read one cached row, token 0's key and value in key/value head 0. {why}: "
            f"token {newest} gives that row {given}.")


def group_figure(state, result):
    """Key/value head 0 and up to GROUP_HEADS_SHOWN query heads that read it: a picture of one cached row read by
    each of them and a sentence with its weights; the caption (none for a head alone at small sizes) says what the
    group's tables (group_tables) show."""
    members = _groups(result.kv_head_of)[0]
    shown = members[:GROUP_HEADS_SHOWN]
    tokens = len(result.query_heads[0])
    cut = tokens > GROUP_TOKENS_SHOWN or result.head_width > GROUP_NUMBERS_SHOWN
    more = f" ({len(members) - len(shown)} more query heads read it too.)" if len(members) > len(shown) else ""
    caption = ""  # a query head alone: the row's sentence and the sharing figure's caption say so already
    if len(members) > 1:
        caption = (f"Key/value head 0 serves query heads {', '.join(map(str, members))}. Their keys and values "
                   f"columns hold the same numbers, read from one cache entry; only the queries differ, so "
                   f"each head asks its own question of one shared memory.{more}")
    if cut:
        shown_sizes = (f"The tables show the first {counted(min(tokens, GROUP_TOKENS_SHOWN), 'token')} and "
                       f"{counted(min(result.head_width, GROUP_NUMBERS_SHOWN), 'number')} of each vector.")
        caption = f"{caption} {shown_sizes}" if caption else shown_sizes
    return ["figure", {"class": "kv-group-figure"},
            ["p", {"class": "note kv-projections-note"}, projections_note(state, result)],
            cached_row_picture(result, shown),
            ["p", {"class": "kv-row-note"}, cached_row_sentence(result, shown)],
            *([["figcaption", {}, caption]] if caption else [])]


def group_tables(result):
    """One table per query head of key/value head 0's group (up to GROUP_HEADS_SHOWN): its own queries beside the
    keys and values it reads (key_heads[0], value_heads[0]), the same numbers in every table of the group."""
    members = _groups(result.kv_head_of)[0]
    return ["div", {"class": "kv-group-tables"},
            *[_group_table(result, h, len(members) > 1) for h in members[:GROUP_HEADS_SHOWN]]]


def _group_table(result, h, shared):
    """Query head h's queries beside key/value head 0's keys and values ("shared" only when others read them too)."""
    queries, keys, values = result.query_heads[h], result.key_heads[0], result.value_heads[0]
    band, note = band_class(h), " (shared)" if shared else ""
    head = ["tr", {}, ["th", {"scope": "col"}, "token"],
            ["th", {"scope": "col", **classes(band)}, f"queries of head {h}"],
            ["th", {"scope": "col", "class": "kv-shared"}, f"keys{note}"],
            ["th", {"scope": "col", "class": "kv-shared"}, f"values{note}"]]
    rows = [body_row(f"token {t}", [_vector_cell(queries[t], "kv-query", band),
                                    _vector_cell(keys[t], "kv-key", "kv-shared"),
                                    _vector_cell(values[t], "kv-value", "kv-shared")])
            for t in range(min(len(queries), GROUP_TOKENS_SHOWN))]
    return table(f"query head {h} and key/value head 0", f"query head {h}", head, rows, "kv-group-table")


def _vector_cell(vector, *names):
    """<td>[a, b, ...]</td> with the first GROUP_NUMBERS_SHOWN numbers to 4 decimals."""
    text = ", ".join(fixed(x) for x in vector[:GROUP_NUMBERS_SHOWN])
    return ["td", classes("vector", *names), f"[{text}{', …' if len(vector) > GROUP_NUMBERS_SHOWN else ''}]"]


# --- the KV-cache calculator -----------------------------------------------

def model_select(selected=None):
    """<select id='kv-model'> of mha.MODEL_SHAPES by name, then 'your own shape' (value 'custom')."""
    options = [(name, name) for name in MODEL_NAMES] + [("custom", CUSTOM_MODEL)]
    return select("kv-model", options, selected if selected in MODEL_NAMES else "custom", **{"aria-label": "model"})


def kv_calculator(kv):
    """The model picker and the fields (state.KV: shape, sequence length, bytes per number, batch): children."""
    return [["label", {"class": "control"}, "model ", model_select(kv.shape.name)],
            ["div", {"id": "kv-fields"}, kv_cache_fields(*kv)]]


KV_FIELDS = (  # (id, label, ModelShape field or None)
    ("kv-layers", "layers", "layers"),
    ("kv-query-heads", "query heads", "heads"),
    ("kv-kv-heads", "key/value heads", "kv_heads"),
    ("kv-head-width", "width per head", "head_width"),
    ("kv-seq-len", "sequence length (tokens)", None),
    ("kv-batch", "conversations at once (batch)", None),
    ("kv-bytes", "bytes per number", None),
)


def kv_cache_fields(shape, seq_len, bytes_per_value=2, batch=1):
    """Labelled inputs for a model shape, the sequence length, the batch and bytes per number."""
    values = {"kv-seq-len": seq_len, "kv-bytes": bytes_per_value, "kv-batch": batch}
    rows = [["label", {"for": fid}, label, " ",
             ["input", {"id": fid, "type": "text", "inputmode": "numeric", "size": "8", "autocomplete": "off",
                        "aria-describedby": "kv-error",
                        "value": number_text(getattr(shape, field) if field else values[fid])}]]
            for fid, label, field in KV_FIELDS]
    return ["div", {"class": "kv-fields"}, *rows]


def read_kv_fields(texts):
    """{field id: text} -> (ModelShape('custom', ...), seq_len, bytes_per_value, batch), checked by mha.parse_*."""
    def count(fid, label, high):
        return mha.parse_count(texts.get(fid, ""), label, 1, high)
    shape = mha.ModelShape("custom", count("kv-layers", "layers", 10_000),
                           count("kv-query-heads", "query heads", 10_000),
                           count("kv-kv-heads", "key/value heads", 10_000),
                           count("kv-head-width", "head width", 100_000))
    seq_len = count("kv-seq-len", "sequence length", SEQ_LEN_CAP)
    batch = count("kv-batch", "batch", BATCH_CAP)
    bytes_per_value = mha.parse_number(texts.get("kv-bytes", ""), "bytes per number")
    mha.model_bill(shape, seq_len, bytes_per_value, batch)
    return shape, seq_len, bytes_per_value, batch


def context_warning(shape, seq_len):
    """The sentence for a sequence longer than the model was built for, or ''."""
    if not mha.beyond_context(shape, seq_len):
        return ""
    return (f"{seq_len:,} tokens is more than the {shape.context:,} that {shape.name} was built for "
            f"(max_position_embeddings in its config). The bill below is what such a cache would take, "
            f"but the model was never trained to read that far.")


def kv_cache_readout(shape, seq_len, bytes_per_value=2, batch=1):
    """The bill for one model: per token, the cache, unshared, the saving, the weights, the total; a warning."""
    bill = mha.model_bill(shape, seq_len, bytes_per_value, batch)
    weights = mha.weights_bytes(shape, WEIGHT_BYTES)
    conversations = counted(batch, "conversation")
    per_token = (f"2 (keys and values) × {counted(shape.layers, 'layer')} × "
                 f"{counted(shape.kv_heads, 'key/value head')} × {counted(shape.head_width, 'number')} × "
                 f"{counted(bytes_per_value, 'byte')}")
    kept = counted(bill.tokens, "token")
    if bill.tokens < seq_len:
        kept += f" (the last {shape.window:,} of {seq_len:,}: a sliding window)"
    rows = [body_row("per token", [["td", {}, per_token, " = ", _money(bill.per_token, "strong")]]),
            body_row("KV cache", [["td", {}, f"{mha.format_bytes(bill.per_token)} × {kept} × {conversations} = ",
                                   _money(bill.bytes, "strong")]]),
            body_row(f"with one key/value head per query head ({shape.heads})", [_money(bill.full_bytes, "td")]),
            body_row("saved by sharing keys and values",
                     [["td", {"data-value": repr(bill.saving)}, f"{bill.saving:.1%}"]])]
    if weights is None:
        rows.append(body_row("the weights", [["td", {}, "not known for your own shape"]]))
    else:
        rows += [body_row(f"the weights: {shape.params / 1e9:.2f} billion parameters × {WEIGHT_BYTES} bytes (bf16)",
                          [_money(weights, "td")]),
                 body_row("weights and KV cache together", [_money(weights + bill.bytes, "td")])]
    source = f" ({shape.source}, config.json)" if shape.source else ""
    caption = f"{shape.name}{source}: {counted(seq_len, 'token')}, {conversations}"
    warning = context_warning(shape, seq_len)
    held = shape.name in QUESTION_MODELS  # kv.css hides the bill, and shows the note, until the question's Check
    return [["p", {"class": "kv-warning", "role": "status"}, *([warning] if warning else [])],
            *([["p", {"class": "note kv-held"}, f"{shape.name}'s bill waits for your answer to the question "
                                                 "above."]] if held else []),
            ["table", {"class": "figure-table kv-bill" + (" held" if held else ""),
                       "aria-label": f"KV cache bill for {shape.name}"},
             ["caption", {}, caption], ["tbody", {}, *rows]]]


def _money(n, tag, *names):
    return [tag, {"data-value": repr(n), **classes(*names)}, mha.format_bytes(n)]


def kv_cache_table(seq_len, bytes_per_value=2, batch=1, shapes=mha.MODEL_SHAPES):
    """<table aria-label='KV cache by model'>: one row per model shape at seq_len tokens x batch."""
    head = header_row("model (config)", ["layers", "query / kv heads", "head width", "max positions",
                                         "per token", "KV cache", "saved", "weights (bf16)"])
    rows = [_model_row(shape, seq_len, bytes_per_value, batch) for shape in shapes]
    caption = (f"{counted(seq_len, 'token')} × {counted(batch, 'conversation')}, "
               f"{counted(bytes_per_value, 'byte')} per number; "
               f"max positions: the config's max_position_embeddings; “beyond context”: longer than that")
    return table("KV cache by model", caption, head, rows, "kv-models")


def _model_row(shape, seq_len, bytes_per_value, batch):
    bill = mha.model_bill(shape, seq_len, bytes_per_value, batch)
    counts = [["td", {"class": "num"}, str(shape.layers)], ["td", {"class": "num"}, f"{shape.heads} / {shape.kv_heads}"],
              ["td", {"class": "num"}, str(shape.head_width)]]
    context = [str(shape.context), *([["small", {"class": "window"}, f" window {shape.window}"]] if shape.window else [])]
    beyond = mha.beyond_context(shape, seq_len)
    cache = ["td", {"data-value": repr(bill.bytes), **classes("num", "beyond" if beyond else "")},
             mha.format_bytes(bill.bytes), *([["span", {"class": "beyond-note"}, " beyond context"]] if beyond else [])]
    name = ["th", {"scope": "row"}, shape.name, ["small", {"class": "config"}, " " + shape.source]]
    return ["tr", {}, name, *counts, ["td", {"class": "num"}, *context],
            ["td", {"class": "num", "data-value": repr(bill.per_token)}, mha.format_bytes(bill.per_token)],
            cache,
            ["td", {"class": "num", "data-value": repr(bill.saving)}, f"{bill.saving:.1%}"],
            _money(mha.weights_bytes(shape, WEIGHT_BYTES), "td", "num")]


# --- numbers in section 6's prose (<!--value:KEY-->), all from mha ---------------------

def _prose_bill(name, seq_len, batch=1):
    return mha.model_bill(model_shape(name), seq_len, 2, batch)


def _prose():
    llama, mistral = model_shape(PROSE_MODEL), model_shape(PROSE_WINDOW_MODEL)
    short = _prose_bill(PROSE_MODEL, llama.context)
    windowed = _prose_bill(PROSE_WINDOW_MODEL, mistral.context)
    unwindowed = mha.model_bill(mistral._replace(window=None), mistral.context)
    batch = mha.caches_outweigh_weights(llama, llama.context)  # the fewest conversations whose caches outweigh it
    batched = _prose_bill(PROSE_MODEL, llama.context, batch)
    return {
        "kv-model": lambda: PROSE_MODEL,
        "kv-model-kv-heads": lambda: str(llama.kv_heads),
        "kv-model-heads": lambda: str(llama.heads),
        "kv-per-token": lambda: mha.format_bytes(short.per_token),
        "kv-context": lambda: f"{llama.context:,}",  # a token count as the KV warning says it: 8,192
        "kv-cache-context": lambda: mha.format_bytes(short.bytes),
        "kv-cache-unshared": lambda: mha.format_bytes(short.full_bytes),
        "kv-weights": lambda: mha.format_bytes(mha.weights_bytes(llama, WEIGHT_BYTES)),
        "kv-batch": lambda: str(batch),
        "kv-cache-batch": lambda: mha.format_bytes(batched.bytes),
        "kv-window-model": lambda: PROSE_WINDOW_MODEL,
        "kv-window": lambda: f"{mistral.window:,}",
        "kv-window-context": lambda: f"{mistral.context:,}",
        "kv-cache-windowed": lambda: mha.format_bytes(windowed.bytes),
        "kv-cache-unwindowed": lambda: mha.format_bytes(unwindowed.bytes),
    }


# --- the registry: this family's elements ----------------------------------------

def _kv_sharing(state, view, before):
    """Query heads (the same choice as section 2's), key/value heads, and who shares what."""
    result = view.result
    return [count_select("sharing-heads", "query heads (the same as section 2's)", mha.head_choices(result.width),
                         len(result.kv_head_of)), " ",
            kv_heads_picker(len(result.kv_head_of), len(set(result.kv_head_of))), sharing_diagram(result.kv_head_of)]


def _kv_models(state, view, before):
    kv = state["kv"]
    return [kv_cache_table(kv.seq_len, kv.bytes_per_value, kv.batch)]


FIGURES = {  # section 6: sharing keys and values, the KV cache
    "fig-kv-sharing": Figure(_kv_sharing, ("structure",)),
    "fig-kv-group": Figure(lambda s, v, b: [group_figure(s, v.result)], ("numbers",)),
    "fig-kv-group-tables": Figure(lambda s, v, b: [group_tables(v.result)], ("numbers",)),
    "fig-kv-cache": Figure(lambda s, v, b: kv_calculator(s["kv"])),
    "kv-fields": Figure(lambda s, v, b: [kv_cache_fields(*s["kv"])], ("model",), mark=False),
    "kv-bill": Figure(lambda s, v, b: kv_cache_readout(*s["kv"]), ("model", "kv")),
    "kv-models": Figure(_kv_models, ("model", "kv")),
}
PROSE = _prose()
