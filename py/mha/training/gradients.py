"""The backward pass, by hand: mean cross-entropy on the pinned positions and its gradient.

For one head, with y = x + weights @ values the stream after it (shapes n x 18,
weights n x n), working back from dy = d loss / dy:

    d values  = weights^T @ dy
    d weights_ij = dy_i . values_j                                    (j <= i)
    d scores_ij  = weights_ij (d weights_ij - sum_k weights_ik d weights_ik)
    d queries = d scores @ x,   d x (as keys) = d scores^T @ queries   (score_ij = queries_i . x_j)
    d W_QK = x^T @ d queries,      d W_OV = x^T @ d values
    d x = dy + d queries @ W_QK^T + d keys + d values @ W_OV^T

The first layer's x is the frozen one-hot stream, so its d x is not needed and
x^T @ rows is a scatter of rows into two rows of the gradient each.
"""

import math

from ..attention import dot
from ..softmax import softmax
from .model import VOCAB, WIDTH, forward, mat_mul, transpose
from .task import pinned_positions


def cross_entropy(logits, target):
    """-log softmax(logits)[target]; returns (loss, d loss / d logits = softmax - one-hot(target))."""
    probs = softmax(logits)
    loss = -math.log(probs[target])
    probs[target] -= 1.0
    return loss, probs


def zeros_like(params):
    """A params-shaped structure of zeros, to accumulate gradients into."""
    def zeros(matrix):
        return [[0.0] * len(row) for row in matrix]
    layers = [[{"qk": zeros(h["qk"]), "ov": zeros(h["ov"])} for h in heads] for heads in params["layers"]]
    return {"layers": layers, "unembed": zeros(params["unembed"])}


def gradients(params, batch):
    """(mean loss, grads) over every pinned position of batch, a list of (tokens, n); grads shaped like params."""
    count = sum(len(pinned_positions(n)) for _, n in batch)
    grads = zeros_like(params)
    total = sum(backward(params, tokens, pinned_positions(n), grads, 1.0 / count) for tokens, n in batch)
    return total / count, grads


def backward(params, tokens, pinned, grads, scale=1.0):
    """Add scale * d(sum of the losses at the pinned positions) / d params into grads; returns that sum of losses.

    Position p's loss is the cross-entropy of logits[p] against tokens[p + 1].
    """
    trace = forward(params, tokens, rows=pinned)  # the loss reads no other position's logits
    x = trace.residuals[-1]
    d_x = [[0.0] * WIDTH for _ in tokens]
    total = 0.0
    for p in pinned:
        loss, d_logits = cross_entropy(trace.logits[p], tokens[p + 1])
        total += loss
        d_logits = [g * scale for g in d_logits]
        add_outer(grads["unembed"], x[p], d_logits)             # d W_U += x_p^T d logits_p
        d_x[p] = [dot(row, d_logits) for row in params["unembed"]]  # d x_p = W_U d logits_p
    for layer in reversed(range(len(params["layers"]))):
        d_x = layer_backward(params, grads, trace, tokens, layer, d_x)
    return total


def layer_backward(params, grads, trace, tokens, layer, d_out):
    """Add one layer's gradients into grads, given d_out = d loss / d (stream after it), n x 18.

    Returns d loss / d (stream before it), n x 18 (None for layer 0, whose stream is frozen).
    """
    heads = zip(params["layers"][layer], grads["layers"][layer], trace.queries[layer],
                trace.values[layer], trace.weights[layer])
    if layer == 0:
        for _, g, _, values, weights in heads:
            one_hot_head_backward(g, tokens, values, weights, d_out)
        return None
    x = trace.residuals[layer]
    d_x = [row[:] for row in d_out]  # the residual path
    for w, g, queries, values, weights in heads:
        head_backward(w, g, x, queries, values, weights, d_out, d_x)
    return d_x


def head_backward(w, g, x, queries, values, weights, d_out, d_x):
    """One head on a dense stream x (n x 18): add d W_QK, d W_OV into g and the head's d x into d_x.

    Only the rows i where d_out is not zero (the pinned positions, after the last
    layer) carry a gradient, so each step sums over those rows:
    d W_OV = sum_i (weights_i @ x)^T d_out_i    (x^T d values, d values = weights^T d_out)
    d W_QK = sum_i x_i^T d queries_i,           d queries_i = sum_j d scores_ij x_j
    d x_j += weights_ij d_out_i W_OV^T + d scores_ij queries_i, and d x_i += d queries_i W_QK^T.
    """
    for i in [i for i, row in enumerate(d_out) if any(row)]:
        row, d_row = weights[i], d_out[i]
        d_scores = score_gradients(row[:i + 1], d_row, values)
        add_outer(g["ov"], mix(row, x), d_row)
        d_queries = mix(d_scores, x)
        add_outer(g["qk"], x[i], d_queries)
        back_through_ov = [dot(d_row, ov_row) for ov_row in w["ov"]]  # d_out_i W_OV^T
        for j, (a, d) in enumerate(zip(row, d_scores)):
            d_x[j][:] = [s + a * v + d * q for s, v, q in zip(d_x[j], back_through_ov, queries[i])]
        d_x[i][:] = [s + dot(d_queries, qk_row) for s, qk_row in zip(d_x[i], w["qk"])]


def one_hot_head_backward(g, tokens, values, weights, d_out):
    """One head on the one-hot stream: add d W_QK and d W_OV into g (x^T @ rows is a scatter).

    d W_QK = x^T d scores x: d scores_ij lands on the 2 x 2 entries (tokens[i] or 6 + i, tokens[j] or 6 + j);
    d W_OV = x^T d values, d values = weights^T @ d_out.
    """
    scatter_rows(g["ov"], tokens, mat_mul(transpose(weights), d_out))  # (n, n)^T (n, 18) -> (n, 18)
    d_queries = []
    for i, (row, d_row) in enumerate(zip(weights, d_out)):
        d_query = [0.0] * WIDTH
        for j, d in enumerate(score_gradients(row[:i + 1], d_row, values)):
            d_query[tokens[j]] += d
            d_query[VOCAB + j] += d
        d_queries.append(d_query)
    scatter_rows(g["qk"], tokens, d_queries)


def score_gradients(weights, d_output, values):
    """d loss / d scores_ij for one query i, scores_ij = queries_i . x_j (the softmax backward).

    weights: the i + 1 unmasked weights of row i; d_output: d loss / d (head output i);
    returns i + 1 floats: weights_j (d weights_j - sum_k weights_k d weights_k), d weights_j = d_output . values_j.
    """
    d_weights = [dot(d_output, v) for v in values[:len(weights)]]
    mean = dot(weights, d_weights)
    return [a * (d - mean) for a, d in zip(weights, d_weights)]


def mix(coefficients, rows):
    """sum_j coefficients[j] rows[j]: a weighted sum of the first len(coefficients) rows."""
    return [dot(coefficients, col) for col in zip(*rows[:len(coefficients)])]


def add_outer(matrix, column, row):
    """matrix += column^T row (an outer product), in place."""
    for out, c in zip(matrix, column):
        if c:
            out[:] = [m + c * r for m, r in zip(out, row)]


def scatter_rows(matrix, tokens, rows):
    """matrix += embed(tokens)^T @ rows, in place: row i goes into rows tokens[i] and 6 + i."""
    for i, (t, row) in enumerate(zip(tokens, rows)):
        for target in (matrix[t], matrix[VOCAB + i]):
            target[:] = [m + r for m, r in zip(target, row)]

