# The KV cache bill:
#   2 (keys and values) x layers x kv heads x tokens x head width x bytes
import mha

seq_len = 8192          # tokens kept in the cache for one conversation
bytes_per_value = 2     # 16-bit numbers

print(f"{seq_len} tokens, {bytes_per_value} bytes a number:")
for shape in mha.MODEL_SHAPES:
    bill = mha.kv_cache_bill(shape.layers, shape.heads, shape.kv_heads,
                             seq_len, shape.head_width, bytes_per_value)
    size = mha.format_bytes(bill.bytes)
    full = mha.format_bytes(bill.full_bytes)
    print(f"{shape.name:11} {size:>9}  "
          f"({shape.kv_heads} kv / {shape.heads} query heads)")
    print(f"{'':11} {full:>9}  without sharing: saved {bill.saving:.0%}")
