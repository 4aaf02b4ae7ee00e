"""python -m mha prints the lesson's worked example, and the reader's own tokens."""

import subprocess
import sys
from pathlib import Path

PY = Path(__file__).resolve().parents[2] / "py"


def run(*args):
    return subprocess.run([sys.executable, "-m", "mha", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(PY)})


def test_default_prints_the_lesson_example():
    out = run()
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        "head 0 (slots 0-1):", "  [0.5177, 0.4823]", "  [0.5141, 0.4859]",
        "head 1 (slots 2-3):", "  [0.6698, 0.3302]", "  [0.3302, 0.6698]",
        "one head over all 4 slots:", "  [0.6341, 0.3659]", "  [0.3870, 0.6130]",
    ]


def test_own_tokens_give_the_exercise_numbers():
    out = run("--tokens", "1,0,0,1; 0.9,0.1,0,1")
    assert "  [0.5000, 0.5000]" in out.stdout
    assert out.stdout.splitlines()[-2:] == ["  [0.5125, 0.4875]", "  [0.5100, 0.4900]"]


def test_causal_and_kv_heads_flags():
    out = run("--tokens", "1,0,0,1; 0.9,0.1,1,0", "--heads", "2", "--kv-heads", "1", "--causal")
    lines = out.stdout.splitlines()
    assert lines[0] == "head 0 (slots 0-1, key/value head 0):"
    assert lines[1] == "  [1.0000, 0.0000]"  # token 0 sees only itself


def test_bad_input_is_a_one_line_error():
    out = run("--tokens", "1,0,0,1,2,3", "--heads", "4")
    assert out.returncode == 2
    assert out.stderr.strip() == "error: width 6 is not divisible by 4 heads"
    assert run("--tokens", "1,x").stderr.strip() == "error: token 0 slot 1: 'x' is not a number"
