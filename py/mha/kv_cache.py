"""The KV cache bill: how many bytes the keys and values of past tokens take, beside the weights."""

from typing import NamedTuple

from .checks import check_count, check_number

MIN_BYTES = 0.125  # bytes per cached number: one bit is the least a number can take


class ModelShape(NamedTuple):
    """A model's attention shape, from its published config; None where a number is not known.

    context: the longest sequence it was built for (max_position_embeddings);
    window: a sliding window, the most past tokens one layer attends to and caches;
    params: its parameter count (for the weights' own memory); source: the config, by name.
    """

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_width: int
    context: int = None
    window: int = None
    params: int = None
    source: str = ""

    def times_the_params(self, other):
        """self.params / other.params: how many times the other model's parameter count this one holds."""
        if self.params is None or other.params is None:
            raise ValueError(f"the parameter count of {self.name if self.params is None else other.name} is not known")
        return self.params / other.params

    @property
    def counts(self):
        """(layers, heads, kv_heads, head_width): what the KV bill reads; equal counts, equal bills."""
        return (self.layers, self.heads, self.kv_heads, self.head_width)


# Each model's config.json on the Hugging Face hub, by repository name:
#   layers = num_hidden_layers, heads = num_attention_heads, kv_heads = num_key_value_heads,
#   head_width = hidden_size / num_attention_heads, context = max_position_embeddings,
#   window = sliding_window. params: the parameter count of the published weights, which
#   tests/unit/test_kv_cache.py works out again from the same configs (vocab_size,
#   hidden_size, intermediate_size, ...).
MODEL_SHAPES = (
    # 32 layers, 32 heads, no num_key_value_heads (so 32), hidden_size 4096, max_position_embeddings 4096
    ModelShape("Llama-2-7B", 32, 32, 32, 128, 4096, None, 6_738_415_616, "meta-llama/Llama-2-7b-hf"),
    # 80 layers, 64 heads, 8 kv heads, hidden_size 8192, max_position_embeddings 4096
    ModelShape("Llama-2-70B", 80, 64, 8, 128, 4096, None, 68_976_648_192, "meta-llama/Llama-2-70b-hf"),
    # 32 layers, 32 heads, 8 kv heads, hidden_size 4096, max_position_embeddings 8192
    ModelShape("Llama-3-8B", 32, 32, 8, 128, 8192, None, 8_030_261_248, "meta-llama/Meta-Llama-3-8B"),
    # the same shape; max_position_embeddings 131072 (rope_scaling "llama3")
    ModelShape("Llama-3.1-8B", 32, 32, 8, 128, 131072, None, 8_030_261_248, "meta-llama/Llama-3.1-8B"),
    # 80 layers, 64 heads, 8 kv heads, hidden_size 8192, max_position_embeddings 8192
    ModelShape("Llama-3-70B", 80, 64, 8, 128, 8192, None, 70_553_706_496, "meta-llama/Meta-Llama-3-70B"),
    # 32 layers, 32 heads, 8 kv heads, hidden_size 4096, max_position_embeddings 32768, sliding_window 4096
    ModelShape("Mistral-7B-v0.1", 32, 32, 8, 128, 32768, 4096, 7_241_732_096, "mistralai/Mistral-7B-v0.1"),
    # n_layer 32, n_head 71, multi_query true (one kv head), hidden_size 4544; no
    # max_position_embeddings in the file: FalconConfig's default, 2048, the length it was trained at
    ModelShape("Falcon-7B", 32, 71, 1, 64, 2048, None, 6_921_720_704, "tiiuae/falcon-7b"),
    # 28 layers, 28 heads, 4 kv heads, hidden_size 3584, max_position_embeddings 131072
    # (sliding_window is set but use_sliding_window is false: every layer keeps every token)
    ModelShape("Qwen2.5-7B", 28, 28, 4, 128, 131072, None, 7_615_616_512, "Qwen/Qwen2.5-7B"),
)


class KVCacheBill(NamedTuple):
    """bytes: this cache; full_bytes: the same model with one kv head per query head.

    tokens: how many tokens each sequence keeps (the sequence length, or the sliding
    window when that is shorter); per_token: the bytes one kept token costs one sequence.
    """

    bytes: float
    full_bytes: float
    saving: float  # fraction of full_bytes saved by sharing keys and values
    tokens: int = None
    per_token: float = None


def kv_cache_bytes(layers, kv_heads, seq_len, head_width, bytes_per_value=2, batch=1):
    """2 (keys and values) x layers x kv_heads x seq_len x head_width x bytes_per_value x batch."""
    for label, value in (("layers", layers), ("key/value heads", kv_heads), ("sequence length", seq_len),
                         ("head width", head_width), ("batch", batch)):
        check_count(label, value)
    check_number("bytes per number", bytes_per_value)
    if not bytes_per_value >= MIN_BYTES:
        raise ValueError(f"bytes per number must be at least {MIN_BYTES:g} (one bit), got {bytes_per_value:g}")
    return 2 * layers * kv_heads * seq_len * head_width * bytes_per_value * batch


def kv_cache_bill(layers, heads, kv_heads, seq_len, head_width, bytes_per_value=2, batch=1, window=None):
    """The cache with kv_heads shared heads, the cache with one per query head, and the saving.

    batch: sequences cached at once (conversations served together); window: a sliding
    window, so each sequence keeps min(seq_len, window) tokens (None: all of them).
    """
    check_count("heads", heads)
    check_count("kv_heads", kv_heads)
    if heads % kv_heads:
        raise ValueError(f"{heads} query heads are not divisible by {kv_heads} key/value heads")
    if window is not None:
        check_count("window", window)
    kept = seq_len if window is None else min(seq_len, window)
    shared = kv_cache_bytes(layers, kv_heads, kept, head_width, bytes_per_value, batch)
    full = kv_cache_bytes(layers, heads, kept, head_width, bytes_per_value, batch)
    per_token = kv_cache_bytes(layers, kv_heads, 1, head_width, bytes_per_value)
    return KVCacheBill(shared, full, 1 - kv_heads / heads, kept, per_token)


def model_bill(shape, seq_len, bytes_per_value=2, batch=1):
    """kv_cache_bill for a ModelShape, its sliding window included."""
    return kv_cache_bill(shape.layers, shape.heads, shape.kv_heads, seq_len, shape.head_width,
                         bytes_per_value, batch, shape.window)


def weights_bytes(shape, bytes_per_weight=2):
    """params x bytes_per_weight (2: bf16), the memory the weights take; None if params is not known."""
    return None if shape.params is None else shape.params * bytes_per_weight


def caches_outweigh_weights(shape, seq_len, bytes_per_value=2, bytes_per_weight=2):
    """The fewest conversations of seq_len tokens whose KV caches together weigh more than the weights:
    weights // one cache + 1. ValueError if the model's parameter count is not known."""
    weights = weights_bytes(shape, bytes_per_weight)
    if weights is None:
        raise ValueError(f"{shape.name}'s parameter count is not known, so its weights cannot be weighed")
    return int(weights // model_bill(shape, seq_len, bytes_per_value).bytes) + 1


def beyond_context(shape, seq_len):
    """True when seq_len is longer than the context the model was built for (False if not known)."""
    return shape.context is not None and seq_len > shape.context


def format_bytes(n):
    """A byte count for people: '0.25 B', '512 B', '4.0 KiB', '1.50 GiB', '97.66 TiB'."""
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if size < 2**30 else f"{n / size:,.2f} {unit}"
    return f"{n:,.0f} B" if n >= 10 else f"{n:.3g} B"
