"""Adam, and the learning rate that decays linearly over a fixed horizon of steps."""

import math

LEARNING_RATE = (0.03, 0.003)  # at the first step, at the horizon's last step and after
BETAS = (0.9, 0.99)
EPSILON = 1e-8


def learning_rate(step, horizon, start=LEARNING_RATE[0], end=LEARNING_RATE[1]):
    """start at step 0, end at step horizon - 1 and every step after it, a straight line between."""
    return start if horizon <= 1 else start + (end - start) * min(step, horizon - 1) / (horizon - 1)


def adam_state(blocks):
    """Zeros for the first and second moments, one matrix per parameter block: (m, v)."""
    return ([[[0.0] * len(row) for row in block] for block in blocks],
            [[[0.0] * len(row) for row in block] for block in blocks])


def adam_step(blocks, grads, state, step, lr, betas=BETAS, eps=EPSILON):
    """One Adam update of every block, in place; step counts from 0.

    m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;
    w <- w - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),  t = step + 1.
    """
    b1, b2 = betas
    c1, c2 = 1.0 - b1 ** (step + 1), 1.0 - b2 ** (step + 1)
    sqrt = math.sqrt
    for block, g_block, m_block, v_block in zip(blocks, grads, *state):
        for w, g, m, v in zip(block, g_block, m_block, v_block):
            m[:] = [b1 * a + (1.0 - b1) * d for a, d in zip(m, g)]
            v[:] = [b2 * a + (1.0 - b2) * d * d for a, d in zip(v, g)]
            w[:] = [x - lr * (a / c1) / (sqrt(b / c2) + eps) for x, a, b in zip(w, m, v)]
