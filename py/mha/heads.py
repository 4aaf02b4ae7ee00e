"""Multi-head attention: split, attend in parallel, concatenate, mix.

Grouped-query and multi-query attention, cross-attention and the causal
mask are all arguments of the one function below, not copies of it.
"""

import math
from dataclasses import dataclass, field
from functools import cached_property

from .attention import attention_weights, causal_mask, check_positive, weighted_sum
from .checks import check_count, check_matrix
from .projections import check_weight, matmul


@dataclass(frozen=True, eq=False)
class MultiHeadResult:
    """What multi_head_attention computed, step by step.

    Computed at once: weights, heads x n x m softmax rows; head_slots, per
    query head the (start, stop) slots it reads in the simple split;
    kv_head_of, per query head the key/value head it shares; query_heads
    (heads x n x hw), key_heads and value_heads (kv_heads x m x hw), what
    each head compares and averages: query head i reads key_heads[kv_head_of[i]].

    Computed when first read (step 4 of the recipe), then kept: a figure that
    draws only the weights never pays for them, and an overflow in them raises
    ValueError at that read.
    head_outputs: heads x n x head_width, each head's weights @ its values;
    concat: n x d, the head outputs side by side; outputs: n x d, concat @ w_o;
    head_writes: heads x n x d, head i's output @ its block of w_o's rows. They add up
    to outputs: concat @ w_o = sum over heads of head_output_i @ w_o[i*hw:(i+1)*hw].
    """

    weights: list
    head_slots: list
    kv_head_of: list
    head_width: int
    value_heads: list = field(repr=False)  # kv_heads x m x head_width
    w_o: object = field(default=None, repr=False)
    project: object = field(default=matmul, repr=False)
    query_heads: list = field(default=None, repr=False)  # heads x n x head_width, after w_q
    key_heads: list = field(default=None, repr=False)    # kv_heads x m x head_width, after w_k

    @property
    def width(self):
        """d = heads x head_width: the width of the concat and of the outputs."""
        return len(self.weights) * self.head_width

    @cached_property
    def head_outputs(self):
        """Per query head, its weights times the values of the key/value head it shares."""
        return [weighted_sum(w, self.value_heads[g]) for w, g in zip(self.weights, self.kv_head_of)]

    @cached_property
    def concat(self):
        """(heads, n, hw) -> (n, d): each token's head outputs side by side."""
        return merge_heads(self.head_outputs)

    @cached_property
    def outputs(self):
        """concat @ w_o (the concat itself when w_o is the identity)."""
        return self.concat if self.w_o is None else self.project(self.concat, self.w_o)

    @cached_property
    def head_writes(self):
        """(heads, n, d): what each head adds to every token, head_outputs[i] @ rows i*hw..(i+1)*hw of w_o."""
        hw, d = self.head_width, self.width
        writes = []
        for i, out in enumerate(self.head_outputs):
            if self.w_o is None:  # the identity's rows for head i: its output lands in its own slots
                writes.append([[0.0] * (i * hw) + list(row) + [0.0] * (d - (i + 1) * hw) for row in out])
            else:
                writes.append(matmul(out, self.w_o[i * hw:(i + 1) * hw]))
        return writes

    def __eq__(self, other):
        if not isinstance(other, MultiHeadResult):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in
                   ("weights", "head_outputs", "concat", "head_slots", "kv_head_of", "head_width", "outputs"))

    __hash__ = None


def head_slots(width, heads):
    """[(i * hw, (i + 1) * hw) for each head]: the slots head i reads in the simple split."""
    head_width = check_heads(width, heads)
    return [(i * head_width, (i + 1) * head_width) for i in range(heads)]


def head_choices(width):
    """The head counts that divide width evenly, e.g. 8 -> [1, 2, 4, 8]."""
    return [h for h in range(1, width + 1) if width % h == 0]


def kv_head_choices(heads):
    """The key/value head counts that divide heads evenly: 1 (multi-query) ... heads (plain)."""
    return head_choices(heads)


def fit_heads(width, heads, kv_heads, wanted=None):
    """(heads, kv_heads) that divide evenly at `width`, changed as little as possible.

    Query heads: `wanted` if given, else `heads` kept when it divides width, else the
    largest divisor of width below it. Key/value heads: as many as the query heads
    when they were (plain multi-head stays plain), else the largest divisor of the
    new head count that is at most kv_heads.
    """
    new = wanted if wanted is not None else max(h for h in head_choices(width) if h <= heads)
    check_heads(width, new)
    if kv_heads == heads:
        return new, new
    return new, max(g for g in kv_head_choices(new) if g <= kv_heads)


def group_size(heads, kv_heads):
    """How many query heads share each key/value head: heads / kv_heads (ValueError unless it divides)."""
    check_count("heads", heads)
    check_count("kv_heads", kv_heads)
    if heads % kv_heads:
        raise ValueError(f"{heads} query heads are not divisible by {kv_heads} key/value heads")
    return heads // kv_heads


def split_heads(vectors, heads):
    """(n, d) -> (heads, n, d / heads): head i gets slots [i * hw, (i + 1) * hw)."""
    width = check_matrix("vector", vectors)
    return [[v[start:stop] for v in vectors] for start, stop in head_slots(width, heads)]


def merge_heads(parts):
    """(heads, n, hw) -> (n, heads * hw): concatenate each token's head outputs."""
    if not parts:
        raise ValueError("merge_heads needs at least one head")
    for h, part in enumerate(parts):
        check_matrix(f"head {h} output", part, len(parts[0][0]) if parts[0] else None)
        if len(part) != len(parts[0]):
            raise ValueError(f"head {h} has {len(part)} tokens, head 0 has {len(parts[0])}")
    return [[x for part in parts for x in part[t]] for t in range(len(parts[0]))]


def check_heads(width, heads, kv_heads=None):
    """heads divides width, kv_heads divides heads; returns head_width = width / heads."""
    check_count("heads", heads)
    if width % heads:
        raise ValueError(f"width {width} is not divisible by {heads} heads")
    if kv_heads is not None:
        check_count("kv_heads", kv_heads)
        if heads % kv_heads:
            raise ValueError(f"{heads} query heads are not divisible by {kv_heads} key/value heads")
    return width // heads


def multi_head_attention(tokens, heads, *, context=None, kv_heads=None, causal=False,
                         w_q=None, w_k=None, w_v=None, w_o=None, project=matmul, temperature=1.0):
    """concat_i(attention(x w_q[i], c w_k[g(i)], c w_v[g(i)])) w_o; returns a MultiHeadResult.

    tokens: n lists of d floats; context: m lists of d floats (None: the tokens
    themselves, i.e. self-attention). heads divides d, kv_heads divides heads;
    query head i shares key/value head g(i) = i // (heads / kv_heads).
    w_q, w_o: d x d; w_k, w_v: d x (kv_heads * head_width); None = identity.
    causal: query i may attend only to positions j <= i (self-attention only: the
    context is another sequence, so none of it comes later; causal with context
    raises ValueError).
    temperature: every head divides its scores by sqrt(head_width) * temperature
    (1.0: the plain recipe; below 1 sharper rows, above 1 flatter ones).
    project(vectors, w): x @ W for checked inputs (mha.matmul); a caller that
    projects the same rows again and again may pass one that remembers them.
    """
    width = check_matrix("token", tokens)
    check_positive("temperature", temperature)
    source = tokens if context is None else context
    if context is not None:
        check_matrix("context token", context, width)
        if causal:
            raise ValueError("the causal mask is for self-attention: a context is another sequence, none of "
                             "it later, so pass causal=False with context=")
    kv_heads = heads if kv_heads is None else kv_heads
    head_width = check_heads(width, heads, kv_heads)
    group = heads // kv_heads
    kv_width = kv_heads * head_width
    for name, w, cols in (("w_q", w_q, width), ("w_k", w_k, kv_width),
                          ("w_v", w_v, kv_width), ("w_o", w_o, width)):
        if w is not None:
            check_weight(name, w, width, cols)

    # 1. project: (n, d) -> (n, d) queries; (m, d) -> (m, kv_heads * hw) keys and values
    queries = tokens if w_q is None else project(tokens, w_q)
    keys = _kv_identity(source, group, head_width) if w_k is None else project(source, w_k)
    values = _kv_identity(source, group, head_width) if w_v is None else project(source, w_v)

    # 2. split: (n, d) -> (heads, n, hw); (m, kv_heads * hw) -> (kv_heads, m, hw)
    q_heads = _split(queries, heads, head_width)
    k_heads = _split(keys, kv_heads, head_width)
    v_heads = _split(values, kv_heads, head_width)

    # 3. attend: each query head with the keys of the key/value head its group shares
    mask = causal_mask(len(tokens), len(source)) if causal else None
    kv_head_of = [i // group for i in range(heads)]
    scale = 1.0 / (math.sqrt(head_width) * temperature)  # temperature 1.0: exactly 1/sqrt(head_width)
    weights = [attention_weights(q_heads[i], k_heads[g], mask, scale=scale) for i, g in enumerate(kv_head_of)]

    # 4. weights @ values per head, concatenate (heads, n, hw) -> (n, d), mix with w_o:
    #    MultiHeadResult computes these when they are first read
    return MultiHeadResult(weights=weights, head_slots=head_slots(width, heads), kv_head_of=kv_head_of,
                           head_width=head_width, value_heads=v_heads, w_o=w_o, project=project,
                           query_heads=q_heads, key_heads=k_heads)


def single_head_attention(tokens, *, context=None, causal=False, temperature=1.0):
    """The one wide head: one softmax over all d slots (scale 1/(sqrt(d) T)); returns (outputs, weights)."""
    result = multi_head_attention(tokens, 1, context=context, causal=causal, temperature=temperature)
    return result.outputs, result.weights[0]


def _split(vectors, heads, head_width):
    """(n, heads * hw) -> (heads, n, hw) without checks."""
    return [[v[i * head_width:(i + 1) * head_width] for v in vectors] for i in range(heads)]


def _kv_identity(vectors, group, head_width):
    """The identity key/value projection: key/value head j reads the slots of query head j * group.

    (m, d) -> (m, kv_heads * hw); with group == 1 it returns the vectors unchanged.
    """
    if group == 1:
        return vectors
    starts = range(0, len(vectors[0]), group * head_width)
    return [[x for s in starts for x in v[s:s + head_width]] for v in vectors]
