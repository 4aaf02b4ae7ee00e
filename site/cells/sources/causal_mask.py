# A causal mask: token i may look only at tokens 0..i,
# as in a decoder that writes left to right.
import mha

tokens = [
    [1.0, 0.0, 0.0, 1.0],
    [0.9, 0.1, 1.0, 0.0],
    [0.0, 1.0, 1.0, 0.0],
]

print("mask (1 = may attend):")
for row in mha.causal_mask(len(tokens)):
    print("  " + " ".join("1" if allowed else "0" for allowed in row))

result = mha.multi_head_attention(tokens, 2, causal=True)
for h, weights in enumerate(result.weights):
    print(f"head {h}:")
    for row in weights:
        print("  [" + ", ".join(f"{w:.4f}" for w in row) + "]")
