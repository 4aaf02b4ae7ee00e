"""The shipped character model again, in numpy, written from its description and nothing of mha or the trainer.

Used by the test_text_*.py files as the independent reference: embed + sinusoidal positions, then per
layer q, k, v = x W (heads: consecutive slices of head_width), causal softmax(q k^T / sqrt(head_width)) v,
a head switched off writes zeros, x += concat W_o; logits = x W_readout + bias.
"""

import base64
import json
from pathlib import Path

import numpy as np

TEXT = Path(__file__).resolve().parents[2] / "py" / "mha" / "text"
SEEDS = (0, 1, 2)


def shipped(seed=0):
    """model-SEED.json, decoded (its weights still packed)."""
    return json.loads((TEXT / f"model-{seed}.json").read_text())


def matrix(entry):
    """A packed matrix, {"shape", "float32": base64 of little-endian float32, row by row}, as float64 numpy."""
    return np.frombuffer(base64.b64decode(entry["float32"]), dtype="<f4").astype(np.float64).reshape(entry["shape"])


def encode(data, texts, length=None):
    """B texts -> B x length token ids, each padded at the end with id 0 (the causal mask keeps padding
    from reaching earlier positions)."""
    length = length or max(map(len, texts))
    ids = np.zeros((len(texts), length), dtype=np.int64)
    for b, text in enumerate(texts):
        ids[b, :len(text)] = [data["vocab"].index(c) for c in text]
    return ids


def forward(data, ids, off=()):
    """(logits B x T x V, weights {(layer, head): B x T x T}) for B x T token ids."""
    config, w = data["config"], data["weights"]
    d, heads = config["width"], config["heads"]
    hw = d // heads
    B, T = ids.shape
    angle = np.arange(T)[:, None] / np.power(10000.0, np.arange(0, d, 2) / d)[None, :]
    positions = np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(T, d)  # sin, cos interleaved
    x = matrix(w["embed"])[ids] + positions
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    weights = {}
    for layer, block in enumerate(w["layers"]):
        q, k, v = (np.einsum("btd,de->bte", x, matrix(block[name])).reshape(B, T, heads, hw)
                   for name in ("w_q", "w_k", "w_v"))
        outs = []
        for h in range(heads):
            s = np.einsum("bie,bje->bij", q[:, :, h], k[:, :, h]) / np.sqrt(hw)
            s[:, future] = -np.inf
            a = np.exp(s - s.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            weights[layer, h] = a
            outs.append(np.zeros((B, T, hw)) if (layer, h) in off else np.einsum("bij,bje->bie", a, v[:, :, h]))
        x = x + np.einsum("bte,ed->btd", np.concatenate(outs, -1), matrix(block["w_o"]))
    return np.einsum("btd,dv->btv", x, matrix(w["readout"])) + matrix(w["readout_bias"])[0], weights
