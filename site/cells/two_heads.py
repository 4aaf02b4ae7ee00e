# Two heads, two subspaces: the whole recipe with nothing but `math`.
# Edit any number and press Run again.
import math

tokens = [
    [1.0, 0.0, 0.0, 1.0],   # token 0: slots 0-1 say "which object", slots 2-3 a time stamp
    [0.9, 0.1, 1.0, 0.0],   # token 1: same object, different time
]                           # try token 1 = [0.9, 0.1, 0.0, 1.0]: only head 1 moves
heads = 2
head_width = len(tokens[0]) // heads          # 4 slots / 2 heads = 2 slots each


def softmax(scores):
    top = max(scores)                         # subtract the max: same result, no overflow
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


for h in range(heads):
    start, stop = h * head_width, (h + 1) * head_width
    part = [t[start:stop] for t in tokens]    # this head's slice of every token
    print(f"head {h} reads slots {start}-{stop - 1}:")
    for query in part:
        scores = [sum(q * k for q, k in zip(query, key)) / math.sqrt(head_width) for key in part]
        print("  [" + ", ".join(f"{w:.4f}" for w in softmax(scores)) + "]")
