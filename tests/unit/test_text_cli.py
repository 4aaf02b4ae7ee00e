"""python -m mha.text: the keys issue 27 lists, --off, and bad input as a sentence on stderr with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mha.text

ROOT = Path(__file__).resolve().parents[2]
MODEL = mha.text.load()


def cli(*args):
    return subprocess.run([sys.executable, "-m", "mha.text", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "py")})


def test_json_has_exactly_the_issue_s_keys_and_the_reading_s_numbers():
    text = 'Get ab12\n{"id":"ab12"}'
    done = cli(text, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert list(result) == ["text", "guess", "probability", "heads", "scores"]
    reading = mha.text.read(MODEL, text)
    assert result["text"] == text.lower() and result["guess"] == reading.guess
    assert result["probability"] == reading.probability
    assert [list(h) for h in result["heads"]] == [["layer", "head", "weights"]] * 4
    assert [h["weights"] for h in result["heads"]] == [h["weights"] for h in reading.heads]
    assert [list(s) for s in result["scores"]] == [["layer", "head", "previous_token", "induction"]] * 4
    assert result["scores"] == [{k: row[k] for k in ("layer", "head", "previous_token", "induction")}
                                for row in MODEL.measurements["scores"]]


def test_off_is_repeatable_and_switches_those_heads_off():
    text = "ticket ab12cd closed. ref ab12c"
    result = json.loads(cli(text, "--json", "--off", "0.1", "--off", "1.0").stdout)
    assert result["probability"] == mha.text.read(MODEL, text, [(0, 1), (1, 0)]).probability
    assert result["probability"] != mha.text.read(MODEL, text).probability


def test_without_json_a_table_of_every_position():
    done = cli("abc")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["pos", "char", "guess", "p"] and lines[1].split()[:2] == ["0", "'a'"]
    assert len(lines) == 1 + 3 + 1 + 4  # header, 3 positions, the scores' header, 4 heads


@pytest.mark.parametrize("args, sentence", [
    (["price 12 €"], "'€' (position 9) is not in the model's 65 characters"),
    (["x" * 40], "40 characters is longer than the model's context of 32"),
    ([""], "the text is empty: type at least one character"),
    (["abc", "--off", "5.0"], "head 5.0 does not exist: the model has layers 0-1, heads 0-1 in each"),
    (["abc", "--off", "x"], "error: argument --off: 'x' is not a head: write layer.head, e.g. 0.1"),
], ids=["character", "too long", "empty", "no such head", "not a head"])
def test_bad_input_prints_its_sentence_and_exits_2(args, sentence):
    done = cli(*args)
    assert (done.returncode, done.stdout, done.stderr.strip()) == (2, "", sentence)


def test_the_wheel_carries_model_json_and_mha_text_loads_from_it(tmp_path):
    """The page imports mha from build.py's wheel: model.json must be in it, found by importlib.resources in a zip."""
    import build
    name, data = build._build_wheel()
    wheel = tmp_path / name
    wheel.write_bytes(data)
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import mha.text; m = mha.text.load(); "
             "print(mha.text.__file__.startswith(sys.argv[1]), m.about['parameters'], mha.text.read(m, 'ab').guess)")
    out = subprocess.run([sys.executable, "-I", "-c", probe, str(wheel)], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == f"True {MODEL.about['parameters']} {mha.text.read(MODEL, 'ab').guess}"
