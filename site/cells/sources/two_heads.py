# Two heads, two subspaces: the whole recipe with nothing but `math`.
# Edit any number and press Run again.
import math

# Slots 0-1 say "which object", slots 2-3 are a time stamp.
tokens = [
    [1.0, 0.0, 0.0, 1.0],   # token 0
    [0.9, 0.1, 1.0, 0.0],   # token 1: same object, another time
]
# Try token 1 = [0.9, 0.1, 0.0, 1.0]: head 1 moves, head 0 does not
# (section 3's wide head reads every slot, so it moves too).
heads = 2
head_width = len(tokens[0]) // heads   # 4 slots / 2 heads = 2 each


def softmax(scores):
    top = max(scores)   # subtract the max: same result, no overflow
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


for h in range(heads):
    start, stop = h * head_width, (h + 1) * head_width
    part = [t[start:stop] for t in tokens]   # this head's slice
    print(f"head {h} (slots {start}-{stop - 1}):")
    for query in part:
        scores = [dot(query, key) / math.sqrt(head_width) for key in part]
        weights = softmax(scores)
        print("  [" + ", ".join(f"{w:.4f}" for w in weights) + "]")
