# Self- and cross-attention are one function:
# only where the keys and values come from changes.
import mha

decoder = [   # the sequence asking (queries)
    [1.0, 0.0, 0.0, 1.0],
    [0.9, 0.1, 1.0, 0.0],
]
encoder = [   # a second sequence answering (keys and values)
    [1.0, 0.0, 1.0, 0.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.5, 0.5, 0.5, 0.5],
]


def show_rows(title, weights):
    print(title)
    for row in weights:
        print("  [" + ", ".join(f"{w:.4f}" for w in row) + "]")


self_attention = mha.multi_head_attention(decoder, 2)
cross_attention = mha.multi_head_attention(decoder, 2, context=encoder)
for h in range(2):
    show_rows(f"head {h}, self (2 x 2):", self_attention.weights[h])
    show_rows(f"head {h}, cross (2 x 3):", cross_attention.weights[h])

again = mha.multi_head_attention(decoder, 2, context=decoder)
same = again.weights == self_attention.weights
print("context = the decoder itself gives self-attention back:", same)
