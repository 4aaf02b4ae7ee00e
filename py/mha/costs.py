"""What multi-head attention costs: parameters and multiply-adds, for one layer over n tokens.

Counted as written in heads.py, every query against every key:
  1 project   queries x @ w_q (d x d), keys x @ w_k and values x @ w_v (d x kv_heads * hw each)
  2 scores    per query head, n x n dot products of length hw
  3 sums      per query head, n x n weights times values of length hw
  4 output    concat @ w_o (d x d)
With hw = d / heads, steps 2 and 3 cost heads * n * n * hw = n * n * d for any head count:
each head does 1/heads of the work. What grows with heads is the number of softmax weights,
heads * n * n. causal=True counts what a kernel that skips masked pairs does: each query meets
only the keys at or before it, n(n+1)/2 pairs instead of n * n (heads.py itself scores every
pair, then masks).
"""

from typing import NamedTuple

from .checks import check_count
from .heads import check_heads


class AttentionCosts(NamedTuple):
    """One attention layer's sizes, parameters (w_q .. w_o) and multiply-adds (projections .. output)."""

    tokens: int
    width: int
    heads: int
    kv_heads: int
    head_width: int
    kv_width: int        # kv_heads * head_width: the columns of w_k and w_v
    w_q: int
    w_k: int
    w_v: int
    w_o: int
    projections: int     # multiply-adds of x @ w_q, x @ w_k, x @ w_v
    scores: int          # multiply-adds of every head's q . k
    weighted_sums: int   # multiply-adds of every head's weights @ values
    output: int          # multiply-adds of concat @ w_o
    weights: int         # softmax weights: heads x pairs
    causal: bool = False  # only the pairs at or before each query counted: n(n+1)/2 a head, not n x n

    @property
    def parameters(self):
        """w_q + w_k + w_v + w_o."""
        return self.w_q + self.w_k + self.w_v + self.w_o

    @property
    def multiply_adds(self):
        """projections + scores + weighted sums + output."""
        return self.projections + self.scores + self.weighted_sums + self.output


def query_key_pairs(tokens, causal=False):
    """The (query, key) pairs one head scores over n tokens: n * n, or n(n+1)/2 under a causal mask."""
    check_count("tokens", tokens)
    return tokens * (tokens + 1) // 2 if causal else tokens * tokens


def attention_costs(tokens, width, heads, kv_heads=None, *, causal=False):
    """Parameters and multiply-adds of self-attention over n = tokens vectors of width d.

    heads divides d (head width hw = d / heads); kv_heads divides heads (None: as many as heads).
    w_q, w_o: d * d; w_k, w_v: d * kv_heads * hw. projections: n * d * (d + 2 * kv_heads * hw);
    scores and weighted sums: heads * pairs * hw each; output: n * d * d; weights: heads * pairs,
    with pairs = n * n, or n(n+1)/2 when causal (query_key_pairs).
    """
    check_count("tokens", tokens)
    check_count("width", width)
    kv_heads = heads if kv_heads is None else kv_heads
    head_width = check_heads(width, heads, kv_heads)
    kv_width = kv_heads * head_width
    n, d, pairs = tokens, width, query_key_pairs(tokens, causal)
    return AttentionCosts(
        tokens=n, width=d, heads=heads, kv_heads=kv_heads, head_width=head_width, kv_width=kv_width,
        w_q=d * d, w_k=d * kv_width, w_v=d * kv_width, w_o=d * d,
        projections=n * d * d + 2 * n * d * kv_width,
        scores=heads * pairs * head_width,
        weighted_sums=heads * pairs * head_width,
        output=n * d * d,
        weights=heads * pairs,
        causal=bool(causal))


def model_costs(shape, tokens, *, causal=False):
    """attention_costs of one layer of a published model shape (mha.ModelShape) over `tokens` tokens.

    Its width d is heads * head_width (Llama-3-8B: 32 * 128 = 4096).
    """
    return attention_costs(tokens, shape.heads * shape.head_width, shape.heads, shape.kv_heads, causal=causal)


def quadratic_share(costs):
    """(scores + weighted_sums) / multiply_adds of an AttentionCosts: the share of the layer's work
    that grows with the pairs (n * n, or n(n+1)/2 causal) rather than with n. A float in (0, 1)."""
    return (costs.scores + costs.weighted_sums) / costs.multiply_adds
