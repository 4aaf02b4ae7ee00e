"""Code cells as figure trees (placeholder until the cells land): prerender() fills index.html's cell marks."""

CELLS = ("two_heads", "one_head", "causal_mask", "cross_attention", "kv_cache")


def prerender():
    return {"cell-" + name.replace("_", "-"): [] for name in CELLS}
