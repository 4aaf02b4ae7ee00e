"""scripts/train_text_model.py: its hand-written gradients against finite differences, and a short run that
learns and repeats itself from its seed."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_text_model.py"


def trainer():
    spec = importlib.util.spec_from_file_location("train_text_model", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("off", [(), ((0, 1),)], ids=["all on", "0.1 off"])
def test_gradients_match_central_differences(off):
    """A tiny config (vocabulary 7, width 8, 2 layers x 2 heads, 5 positions): for 4 entries of every parameter,
    (loss(p + h) - loss(p - h)) / 2h with h = 1e-6 agrees with backward() to 1e-7 (float64)."""
    t = trainer()
    rng = np.random.default_rng(3)
    params = t.init(rng, 7, 8, 2)
    tokens, targets = rng.integers(0, 7, (2, 5)), rng.integers(0, 7, (2, 5))
    grads = t.backward(params, t.forward(params, tokens, targets, 2, off)[1])
    assert set(grads) == set(params)
    for name, p in params.items():
        for index in [tuple(rng.integers(0, n) for n in p.shape) for _ in range(4)]:
            old, h = p[index], 1e-6
            p[index] = old + h
            up = t.forward(params, tokens, targets, 2, off)[0]
            p[index] = old - h
            down = t.forward(params, tokens, targets, 2, off)[0]
            p[index] = old
            assert abs((up - down) / (2 * h) - grads[name][index]) <= 1e-7, (name, index)
    if off:  # a head switched off gets no gradient through its queries, keys or values
        width = 8 // 2
        assert not grads["0.w_q"][:, width:].any() and not grads["0.w_v"][:, width:].any()


def test_the_learning_rate_warms_up_then_falls_on_a_cosine_to_a_twentieth():
    t = trainer()
    steps, warm = 10_300, t.WARMUP
    assert t.learning_rate(0, steps) == pytest.approx(t.LR / warm)
    assert t.learning_rate(warm - 1, steps) == pytest.approx(t.LR)
    assert t.learning_rate(warm, steps) == pytest.approx(t.LR)
    assert t.learning_rate(warm + 5000, steps) == pytest.approx(t.LR * (0.05 + 0.95 / 2))  # half-way down
    assert t.learning_rate(steps, steps) == pytest.approx(t.LR / 20)


def test_stages_are_read_with_their_own_mix_and_a_bad_mix_is_refused():
    t = trainer()
    assert t.parse_stages("32:800:1/0/0/0,128:50") == ((32, 800, (1.0, 0.0, 0.0, 0.0)), (128, 50))
    with pytest.raises(Exception, match="sum to 1"):
        t.parse_stages("32:800:0.5/0/0/0")


def test_the_packed_weights_read_back_as_the_float32_numbers_they_hold():
    t = trainer()
    m = np.random.default_rng(0).standard_normal((3, 5))
    back = t.unpacked(t.packed(m))
    assert back.shape == (3, 5) and np.array_equal(back, m.astype(np.float32).astype(np.float64))
    import mha.text.model
    assert mha.text.model.unpack(t.packed(m)) == back.tolist()


def test_a_short_run_learns_and_a_second_run_from_its_seed_gives_the_same_weights(tmp_path):
    """300 steps, twice, in their own processes (one BLAS thread, as the script sets before numpy loads)."""
    outs = [tmp_path / f"run{i}.json" for i in range(2)]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENBLAS", "OMP", "MKL"))}
    runs = [subprocess.Popen([sys.executable, SCRIPT, "--steps", "300", "--seed", "5", "--out", out, "--no-measure"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for out in outs]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err.decode()
    first, second = (json.loads(out.read_text()) for out in outs)
    assert first["weights"] == second["weights"]
    assert first["about"]["seed"] == 5 and first["about"]["steps"] == 300
    curve = first["about"]["loss_curve"]
    assert curve[-1] < curve[0] - 0.05, curve  # from about log(65) = 4.17 at the start
    assert first["evaluation"] == second["evaluation"]
