"""Computations run twice, in CPython and in Pyodide; prints one JSON line of results.

Used by test_mha_pyodide.py; standalone so it can be fed to either interpreter.
"""

import json

import mha
import mha.text

tokens = [[((t * 7 + s * 3) % 11) / 5 - 1 for s in range(64)] for t in range(16)]
learned = mha.random_projections(64, 8, kv_heads=2, seed=42)
text_model = mha.text.load()  # through importlib.resources, as the page finds model-0.json beside the wheel's files
text_reading = mha.text.read(text_model, 'get ab12cd\n{"id":"ab12c')
cases = {
    "lesson": mha.multi_head_attention(mha.LESSON_TOKENS, 2).weights,
    "exercise_one_head": mha.single_head_attention(mha.EXERCISE_TOKENS)[1],
    "causal": mha.multi_head_attention(tokens[:5], 8, causal=True).weights,
    "grouped_learned": mha.multi_head_attention(tokens, 8, kv_heads=2, **learned).outputs,
    "cross": mha.multi_head_attention(tokens[:3], 4, context=tokens[3:9]).weights,
    "softmax_huge": mha.softmax([1e300, -1e300, 0.0]),
    "projections": learned,
    "text_logits": text_reading.logits,
    "text_extended": mha.text.extend(text_model, text_reading, "d", off=[(0, 1)]).logits,
    "text_greedy": mha.text.greedy(text_model, "ticket ab12cd closed. ref ", 6).probabilities,
    "kv_cache": [mha.kv_cache_bytes(s.layers, s.kv_heads, 8192, s.head_width) for s in mha.MODEL_SHAPES],
}
print(json.dumps(cases))
