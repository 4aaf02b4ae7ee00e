"""The KV cache bill: how many bytes the keys and values of past tokens take."""

from typing import NamedTuple

from .checks import check_count, check_number


class ModelShape(NamedTuple):
    """A model's attention shape, from its published config."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_width: int


# From each model's public config.json (num_hidden_layers, num_attention_heads,
# num_key_value_heads, hidden_size / num_attention_heads).
MODEL_SHAPES = (
    ModelShape("Llama-2-7B", 32, 32, 32, 128),
    ModelShape("Llama-2-70B", 80, 64, 8, 128),
    ModelShape("Llama-3-8B", 32, 32, 8, 128),
    ModelShape("Mistral-7B", 32, 32, 8, 128),
    ModelShape("Falcon-7B", 32, 71, 1, 64),
    ModelShape("Qwen2.5-7B", 28, 28, 4, 128),
)


class KVCacheBill(NamedTuple):
    """bytes: this cache; full_bytes: the same model with one kv head per query head."""

    bytes: float
    full_bytes: float
    saving: float  # fraction of full_bytes saved by sharing keys and values


def kv_cache_bytes(layers, kv_heads, seq_len, head_width, bytes_per_value=2, batch=1):
    """2 (keys and values) x layers x kv_heads x seq_len x head_width x bytes_per_value x batch."""
    for label, value in (("layers", layers), ("kv_heads", kv_heads), ("seq_len", seq_len),
                         ("head_width", head_width), ("batch", batch)):
        check_count(label, value)
    check_number("bytes_per_value", bytes_per_value)
    if bytes_per_value <= 0:
        raise ValueError(f"bytes_per_value must be positive, got {bytes_per_value}")
    return 2 * layers * kv_heads * seq_len * head_width * bytes_per_value * batch


def kv_cache_bill(layers, heads, kv_heads, seq_len, head_width, bytes_per_value=2, batch=1):
    """The cache with kv_heads shared heads, the cache with one per query head, and the saving."""
    check_count("heads", heads)
    check_count("kv_heads", kv_heads)
    if heads % kv_heads:
        raise ValueError(f"{heads} query heads are not divisible by {kv_heads} key/value heads")
    shared = kv_cache_bytes(layers, kv_heads, seq_len, head_width, bytes_per_value, batch)
    full = kv_cache_bytes(layers, heads, seq_len, head_width, bytes_per_value, batch)
    return KVCacheBill(shared, full, 1 - kv_heads / heads)


def format_bytes(n):
    """A byte count for people: '512 B', '4.0 KiB', '1.50 GiB'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.2f} {unit}" if unit == "GiB" else f"{n / size:.1f} {unit}"
    return f"{n:g} B"
