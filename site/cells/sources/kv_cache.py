# The KV cache bill: per token, per layer, per key/value head, one key
# and one value of head_width numbers (mha.model_bill does the sum).
# A sliding window (Mistral-7B-v0.1) keeps the last `window` tokens.
import mha

seq_len = 8192          # tokens kept in the cache for one conversation
bytes_per_value = 2     # 16-bit numbers
batch = 1               # conversations served at once

print(f"{seq_len} tokens, {batch} conversation(s), "
      f"{bytes_per_value} bytes a number:")
for shape in mha.MODEL_SHAPES:
    bill = mha.model_bill(shape, seq_len, bytes_per_value, batch)
    size = mha.format_bytes(bill.bytes)
    full = mha.format_bytes(bill.full_bytes)
    print(f"{shape.name:11} {size:>9}  "
          f"({shape.kv_heads} kv / {shape.heads} query heads)")
    print(f"{'':11} {full:>9}  without sharing: saved {bill.saving:.0%}")
    if bill.tokens < seq_len:
        print(f"{'':13}keeps the last {bill.tokens} (sliding window)")
    if mha.beyond_context(shape, seq_len):
        print(f"{'':13}past its {shape.context}-token context")
