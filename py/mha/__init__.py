"""Multi-head attention in plain Python: the math behind the lesson.

Vocabulary, used the same way in every module:

- tokens: n vectors of width d (lists of floats); a matrix is a list of rows.
- queries, keys, values: the tokens after the projections w_q, w_k, w_v
  (d rows of d_out numbers, applied as ``x @ W``). A ``Projection`` is such a
  matrix checked once when made, then frozen. A projection left as None is the
  identity: the "simple split" in which head i reads slots
  [i * head_width, (i + 1) * head_width).
- heads: how many query heads; head_width = d / heads.
- kv_heads: how many key/value heads the query heads share (grouped-query);
  kv_heads == heads is plain multi-head, kv_heads == 1 is multi-query.
- context: a second sequence that supplies keys and values (cross-attention).
- weights: one softmax row per query token, one table per head.

Only the standard library (``math``, ``random``) is used, so the same code
runs in CPython, in the browser through Pyodide, and in the tests.
"""

from .softmax import entropy, largest_change, softmax, weight_changes, weight_ratios
from .attention import attention, attention_weights, causal_mask, slice_scores, weighted_sum
from .heads import (
    MultiHeadResult,
    fit_heads,
    group_size,
    head_choices,
    head_slots,
    kv_head_choices,
    merge_heads,
    multi_head_attention,
    single_head_attention,
    split_heads,
)
from .projections import Projection, matmul, project, random_projections
from .kv_cache import (MODEL_SHAPES, KVCacheBill, ModelShape, beyond_context, caches_outweigh_weights, format_bytes,
                       kv_cache_bill, kv_cache_bytes, model_bill, weights_bytes)
from .parse import MAX_TOKENS, MAX_WIDTH, parse_count, parse_number, parse_tokens
from .costs import (AttentionCosts, attention_costs, model_costs, quadratic_share,
                    query_key_pairs)
from .lesson import (BLEND_HEADS, BLEND_TOKENS, COST_MODEL, EXERCISE_TOKENS, LESSON_CONTEXT, LESSON_HEADS,
                     LESSON_TOKENS)

__all__ = (
    "softmax", "entropy", "weight_changes", "largest_change", "weight_ratios",
    "attention", "attention_weights", "weighted_sum", "causal_mask", "slice_scores",
    "MultiHeadResult", "fit_heads", "group_size", "head_choices", "head_slots", "kv_head_choices", "merge_heads",
    "multi_head_attention", "single_head_attention", "split_heads",
    "Projection", "matmul", "project", "random_projections",
    "MODEL_SHAPES", "KVCacheBill", "ModelShape", "beyond_context", "caches_outweigh_weights", "format_bytes",
    "kv_cache_bill",
    "kv_cache_bytes", "model_bill", "weights_bytes",
    "MAX_TOKENS", "MAX_WIDTH", "parse_count", "parse_number", "parse_tokens",
    "AttentionCosts", "attention_costs", "model_costs", "quadratic_share", "query_key_pairs",
    "BLEND_HEADS", "BLEND_TOKENS", "COST_MODEL", "EXERCISE_TOKENS", "LESSON_CONTEXT", "LESSON_HEADS", "LESSON_TOKENS",
)
