"""The tiny transformer's forward pass again, in numpy, from mha.training.model's docstring and nothing of its code.

Shared by test_training.py and test_training_measure.py as their independent reference: one-hot tokens (0-5) and
positions (6-17), per layer each head's causal softmax(x W_QK x^T) and x += sum of the heads' w x W_OV (a head
switched off adds nothing), logits = x W_unembed.
"""

import numpy as np


def numpy_forward(params, tokens, ablate=()):
    """An independent forward pass in numpy: (weights [layer][head], logits), the model docstring's formulas."""
    n = len(tokens)
    x = np.zeros((n, 18))
    x[np.arange(n), tokens] = 1.0
    x[np.arange(n), 6 + np.arange(n)] = 1.0
    weights = []
    for layer, heads in enumerate(params["layers"]):
        out, layer_weights = np.zeros_like(x), []
        for head, h in enumerate(heads):
            scores = x @ np.array(h["qk"]) @ x.T + np.triu(np.full((n, n), -np.inf), 1)
            w = np.exp(scores - scores.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            layer_weights.append(w)
            if (layer, head) not in ablate:
                out += w @ x @ np.array(h["ov"])
        x = x + out
        weights.append(layer_weights)
    return weights, x @ np.array(params["unembed"])
