"""mha against an independent reference written here with numpy (numpy lives in the tests only)."""

import numpy as np
import pytest

import mha


def reference_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k) + mask) v, straight from the formula."""
    scores = q @ k.T / np.sqrt(k.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v, weights


def reference_multi_head(x, heads, context=None, kv_heads=None, causal=False,
                         w_q=None, w_k=None, w_v=None, w_o=None):
    """Llama-style grouped-query attention with numpy reshapes."""
    c = x if context is None else context
    n, d = x.shape
    m = c.shape[0]
    kv_heads = kv_heads or heads
    hw = d // heads
    group = heads // kv_heads
    if w_k is None:  # identity: kv head j reads the slots of query head j * group
        cols = np.concatenate([np.arange(j * group * hw, j * group * hw + hw) for j in range(kv_heads)])
        w_k = w_v = np.eye(d)[:, cols]
    w_q = np.eye(d) if w_q is None else w_q
    w_o = np.eye(d) if w_o is None else w_o
    q = (x @ w_q).reshape(n, heads, hw).transpose(1, 0, 2)        # (h, n, hw)
    k = (c @ w_k).reshape(m, kv_heads, hw).transpose(1, 0, 2)     # (kv, m, hw)
    v = (c @ w_v).reshape(m, kv_heads, hw).transpose(1, 0, 2)
    mask = np.tril(np.ones((n, m), dtype=bool)) if causal else None
    outs, weights = zip(*(reference_attention(q[i], k[i // group], v[i // group], mask) for i in range(heads)))
    concat = np.stack(outs).transpose(1, 0, 2).reshape(n, d)      # (h, n, hw) -> (n, d)
    return concat @ w_o, np.stack(weights)


def random_tokens(rng, n, d):
    return rng.normal(size=(n, d))


CASES = [
    # (tokens, width, heads, kv_heads, context tokens, causal, learned projections)
    (2, 4, 2, None, None, False, False),
    (5, 8, 4, None, None, True, False),
    (6, 8, 4, 2, None, False, False),      # grouped-query, identity projections
    (6, 8, 4, 1, None, True, False),       # multi-query
    (3, 8, 2, None, 7, False, False),      # cross-attention
    (16, 64, 8, None, None, False, True),  # the benchmark shape
    (9, 12, 6, 3, 4, False, True),         # grouped-query cross-attention, learned
]


@pytest.mark.parametrize("n, d, heads, kv_heads, m, causal, learned", CASES)
def test_multi_head_matches_numpy_reference(n, d, heads, kv_heads, m, causal, learned):
    rng = np.random.default_rng(n * 100 + d)
    x = random_tokens(rng, n, d)
    context = None if m is None else random_tokens(rng, m, d)
    weights = mha.random_projections(d, heads, kv_heads=kv_heads, seed=3) if learned else {}
    result = mha.multi_head_attention(
        x.tolist(), heads, context=None if context is None else context.tolist(),
        kv_heads=kv_heads, causal=causal, **weights)
    expected_out, expected_weights = reference_multi_head(
        x, heads, context, kv_heads, causal, **{k: np.array(w) for k, w in weights.items()})
    np.testing.assert_allclose(result.weights, expected_weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.outputs, expected_out, rtol=0, atol=1e-12)


def test_single_head_attention_matches_numpy():
    x = random_tokens(np.random.default_rng(7), 5, 6)
    out, weights = mha.attention(x.tolist(), x.tolist(), x.tolist())
    expected_out, expected_weights = reference_attention(x, x, x)
    np.testing.assert_allclose(weights, expected_weights, atol=1e-12)
    np.testing.assert_allclose(out, expected_out, atol=1e-12)


def test_project_matches_numpy_matmul():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(3, 5)), rng.normal(size=(5, 2))
    np.testing.assert_allclose(mha.project(x.tolist(), w.tolist()), x @ w, atol=1e-12)


def test_random_projections_are_seeded_and_shaped():
    a = mha.random_projections(8, 4, kv_heads=2, seed=5)
    assert a == mha.random_projections(8, 4, kv_heads=2, seed=5)
    assert a != mha.random_projections(8, 4, kv_heads=2, seed=6)
    shapes = {name: np.array(w).shape for name, w in a.items()}
    assert shapes == {"w_q": (8, 8), "w_k": (8, 4), "w_v": (8, 4), "w_o": (8, 8)}
    assert {name: w.shape for name, w in a.items()} == shapes
    bound = np.sqrt(3 / 8)
    assert all(np.abs(np.array(w)).max() <= bound for w in a.values())


@pytest.mark.parametrize("heads, kv_heads", [(2, 2), (4, 2), (4, 1)])
@pytest.mark.parametrize("projected", [False, True])
def test_each_head_writes_through_its_own_rows_of_w_o_and_the_writes_add_up(heads, kv_heads, projected):
    """Section 2's sum-over-heads: concat @ W_O = sum_i head_i @ W_O[i*hw:(i+1)*hw], checked against numpy's
    split of W_O into row blocks; with identity slices head i writes into its own slots only."""
    x = np.array([[1.0, 0.0, 0.0, 1.0, 0.5, -0.5, 0.2, 0.1], [0.9, 0.1, 1.0, 0.0, -0.3, 0.4, 0.0, 0.7],
                  [0.0, 1.0, 1.0, 0.0, 0.2, 0.2, -1.0, 0.3]])
    d, hw = 8, 8 // heads
    weights = mha.random_projections(d, heads, kv_heads=kv_heads, seed=3) if projected else {}
    result = mha.multi_head_attention(x.tolist(), heads, kv_heads=kv_heads, **weights)
    w_o = np.array(weights["w_o"]) if projected else np.eye(d)
    writes = np.array(result.head_writes)
    outs = np.array(result.head_outputs)
    for i in range(heads):
        assert np.allclose(writes[i], outs[i] @ w_o[i * hw:(i + 1) * hw], atol=1e-12)
    assert np.allclose(writes.sum(axis=0), np.array(result.outputs), atol=1e-12)
    expected, _ = reference_multi_head(x, heads, kv_heads=kv_heads,
                                       **{k: np.array(v) for k, v in weights.items()})
    assert np.allclose(writes.sum(axis=0), expected, atol=1e-12)
    if not projected:
        for i in range(heads):
            outside = np.delete(writes[i], np.arange(i * hw, (i + 1) * hw), axis=1)
            assert not outside.any()
