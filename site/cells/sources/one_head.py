# The same two tokens through one wide head (all 4 slots, scale 1/2)
# and through two heads, using the mha package behind the live figures.
import mha

tokens = [
    [1.0, 0.0, 0.0, 1.0],
    [0.9, 0.1, 1.0, 0.0],
]
# tokens = figure_tokens()   # or start from what the figure shows now


def show_rows(title, weights):
    print(title)
    for row in weights:
        print("  [" + ", ".join(f"{w:.4f}" for w in row) + "]")


result = mha.multi_head_attention(tokens, 2)
# result = mha.multi_head_attention(tokens, 2, causal=True)  # a causal mask
for h, weights in enumerate(result.weights):
    show_rows(f"head {h}:", weights)

outputs, wide = mha.single_head_attention(tokens)
show_rows("one head over all 4 slots:", wide)

show(tokens)  # send these tokens to the live figure above
