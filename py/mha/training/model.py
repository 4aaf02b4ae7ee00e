"""The model: two attention-only layers on a residual stream of one-hot tokens and positions.

The residual stream of token i is x_i = one-hot(token) (slots 0-5) followed
by one-hot(position i) (slots 6-17): WIDTH = 18, frozen. Each head of a layer
has two full 18 x 18 matrices and adds its output to the stream:

    queries = x @ W_QK,  keys = sqrt(18) x,  values = x @ W_OV
    weights = softmax(queries keys^T / sqrt(18) + causal mask)   (mha.attention)
    x <- x + weights @ values            (summed over the layer's heads)

so a score is x_i W_QK x_j^T, unscaled: the keys' sqrt(18) cancels the
1/sqrt(key width) inside mha.attention. A fixed scale buys nothing when W_QK
is learned, and it costs: Adam's steps are the same size whatever the scale,
so with 1/sqrt(18) left in the scores move 4.2 times slower (seed 0 reaches
84% held-out accuracy in 400 steps instead of 99.9%). After the last layer,
logits = x @ W_U (18 x 6). No MLP, no LayerNorm. Each head has its own W_QK
and W_OV, so with h heads in all there are h * (324 + 324) + 108 parameters:
1,404 for one head per layer, 2,052 for HEADS = (2, 1), 2,700 for (2, 2).

params = {"layers": [[{"qk": 18x18, "ov": 18x18}, ...heads], ...layers],
          "unembed": 18x6}: lists of rows, JSON-able as they are.
"""

import math
from typing import NamedTuple

from ..attention import attention_weights, causal_mask, dot, weighted_sum
from .task import LENGTH, VOCAB

WIDTH = VOCAB + LENGTH  # 18: the residual stream
KEY_GAIN = math.sqrt(WIDTH)  # keys = KEY_GAIN * x: cancels attention()'s 1/sqrt(18)
HEADS = (2, 2)  # heads per layer: see bench/training_seeds.py for why two and two
INIT_STD = 0.3


def init_params(rng, heads=HEADS, std=INIT_STD):
    """Fresh params: every matrix Gaussian(0, std), drawn with rng (a random.Random) in a fixed order.

    heads: heads per layer. Order: layer by layer, head by head, W_QK then W_OV; W_U last.
    """
    def matrix(rows, cols):
        return [[rng.gauss(0.0, std) for _ in range(cols)] for _ in range(rows)]
    layers = [[{"qk": matrix(WIDTH, WIDTH), "ov": matrix(WIDTH, WIDTH)} for _ in range(count)] for count in heads]
    return {"layers": layers, "unembed": matrix(WIDTH, VOCAB)}


def count_params(params):
    """How many numbers params holds: 648 per head, plus 108 (1,404 for one head per layer)."""
    return sum(len(row) for block in blocks(params) for row in block)


def blocks(params):
    """Every parameter matrix in a fixed order: (layer 0 head 0 qk, ov, ..., unembed)."""
    return [head[name] for heads in params["layers"] for head in heads for name in ("qk", "ov")] + [params["unembed"]]


def embed(tokens):
    """n tokens -> n x 18 rows: one-hot token (slots 0-5), then one-hot position (slots 6-17)."""
    rows = []
    for i, t in enumerate(tokens):
        row = [0.0] * WIDTH
        row[t] = row[VOCAB + i] = 1.0
        rows.append(row)
    return rows


def look_up(matrix, tokens):
    """embed(tokens) @ matrix without multiplying: row tokens[i] + row 6 + i, n x columns."""
    return [[a + b for a, b in zip(matrix[t], matrix[VOCAB + i])] for i, t in enumerate(tokens)]


def mat_mul(a, b):
    """a @ b: n x d times d x m -> n x m."""
    columns = list(zip(*b))
    return [[dot(row, col) for col in columns] for row in a]


def mat_mul_t(a, b):
    """a @ b^T: n x d times (m x d)^T -> n x m (rows of a dotted with rows of b)."""
    return [[dot(row, other) for other in b] for row in a]


def transpose(a):
    """n x m -> m x n."""
    return [list(col) for col in zip(*a)]


class Trace(NamedTuple):
    """What forward() computed, kept for the backward pass and the probes.

    residuals: layers + 1 matrices n x 18 (the stream before each layer, then the last);
    queries, values: [layer][head] n x 18; weights: [layer][head] n x n softmax rows
    (0 above the diagonal); logits: n x 6.
    """

    residuals: list
    queries: list
    values: list
    weights: list
    logits: list


def forward(params, tokens, ablate=(), rows=None):
    """The model on one sequence of n <= 12 tokens; returns a Trace.

    ablate: (layer, head) pairs switched off: their output is not added to the
    stream, so every later layer sees the stream without it (their own weights
    are still computed and returned). trace.weights and trace.logits are what
    a page draws with those heads off.
    rows: the positions whose logits are wanted (None: all). The last layer (when
    it is not the first) then runs only their queries: at the other positions its
    queries and weights, the last stream and the logits are None. The loss needs
    only the pinned positions (gradients.backward).
    """
    return forward_each(params, tokens, [ablate], rows)[0]


def forward_each(params, tokens, ablations, rows=None):
    """[forward(params, tokens, ablate, rows) for ablate in ablations], the same numbers, with less work.

    A layer's input depends only on which heads of the layers before it are off, so each layer runs
    once per distinct input: the 16 ablations of a (2, 2) model run layer 0 once and layer 1 four
    times. Traces share the lists they have in common; read them, do not change them.
    """
    ablations = [frozenset(map(tuple, ablate)) for ablate in ablations]
    x = embed(tokens)
    mask = causal_mask(len(tokens))
    streams = {frozenset(): x}  # the stream entering this layer, by the heads before it that are off
    traces = [Trace([x], [], [], [], None) for _ in ablations]
    last = len(params["layers"]) - 1
    rows = rows if last > 0 else None  # the one-hot first layer always runs in full
    for layer, heads in enumerate(params["layers"]):
        wanted = rows if layer == last else None
        runs = {before: run_layer(heads, layer, stream, tokens, mask, wanted) for before, stream in streams.items()}
        after = {}
        for trace, off in zip(traces, ablations):
            before, now = heads_before(off, layer), heads_before(off, layer + 1)
            queries, values, attended = runs[before]
            if now not in after:
                after[now] = add_heads(streams[before], attended, layer, off)
            trace.residuals.append(after[now])
            trace.queries.append(queries)
            trace.values.append(values)
            trace.weights.append([weights for _, weights in attended])
        streams = after
    logits = {off: spread(mat_mul(pick(stream, rows), params["unembed"]), rows, len(tokens))
              for off, stream in streams.items()}
    return [trace._replace(logits=logits[heads_before(off, last + 1)]) for trace, off in zip(traces, ablations)]


def heads_before(off, layer):
    """The heads of off in layers before layer: what decides the stream entering it."""
    return frozenset(pair for pair in off if pair[0] < layer)


def run_layer(heads, layer, x, tokens, mask, rows=None):
    """One layer's heads on the stream x (n x 18): (queries, values, [(outputs, weights) per head]).

    rows: the queries to run (None: all); the others' queries, outputs and weights are None.
    """
    if layer == 0:  # one-hot rows: x @ W is two rows of W added
        queries = [look_up(head["qk"], tokens) for head in heads]
        values = [look_up(head["ov"], tokens) for head in heads]
    else:
        queries = [mat_mul(pick(x, rows), head["qk"]) for head in heads]
        values = [mat_mul(x, head["ov"]) for head in heads]
    keys = [[KEY_GAIN * v for v in row] for row in x]
    # attention()'s two halves, without its input checks: forward built every input here
    weights = [attention_weights(q, keys, pick(mask, rows)) for q in queries]
    attended = [(spread(weighted_sum(w, v), rows, len(x)), spread(w, rows, len(x))) for w, v in zip(weights, values)]
    return [spread(q, rows, len(x)) for q in queries], values, attended


def pick(items, rows):
    """The items at positions rows (None: all of them)."""
    return items if rows is None else [items[i] for i in rows]


def spread(found, rows, n):
    """found, the results for rows (None: all n), as n entries with None at the other positions."""
    if rows is None:
        return found
    full = [None] * n
    for i, row in zip(rows, found):
        full[i] = row
    return full


def add_heads(x, attended, layer, off):
    """x plus the outputs of the layer's heads that are on, added head by head (None where not run)."""
    for head, (outputs, _) in enumerate(attended):
        if (layer, head) not in off:
            x = [None if out is None else [a + b for a, b in zip(row, out)] for row, out in zip(x, outputs)]
    return x


def argmax(row):
    """The index of the largest entry (the first, on a tie)."""
    return max(range(len(row)), key=row.__getitem__)

