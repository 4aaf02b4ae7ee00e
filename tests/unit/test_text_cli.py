"""python -m mha.text: the keys issue 27 lists, --off, and bad input as a sentence on stderr with exit code 2."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mha.text
from text_reference import encode, forward, shipped

ROOT = Path(__file__).resolve().parents[2]
MODEL = mha.text.load()
DATA = shipped()


def cli(*args):
    return subprocess.run([sys.executable, "-m", "mha.text", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "py")})


def test_json_has_exactly_the_issue_s_keys_and_the_reading_s_numbers():
    text = 'Get ab12\n{"id":"ab12"}'
    done = cli(text, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert list(result) == ["seed", "text", "guess", "probability", "next_probability", "heads", "scores", "roles"]
    reading = mha.text.read(MODEL, text)
    assert result["seed"] == 0 and result["text"] == text.lower() and result["guess"] == reading.guess
    assert result["probability"] == reading.probability
    assert [list(h) for h in result["heads"]] == [["layer", "head", "weights"]] * len(MODEL.names)
    assert [h["weights"] for h in result["heads"]] == [h["weights"] for h in reading.heads]
    assert result["scores"] == MODEL.measurements["scores"]
    assert [[r["layer"], r["head"], r["role"]] for r in result["roles"]] == MODEL.measurements["roles"]


def test_next_probability_is_the_probability_of_each_actual_next_character():
    """Worked from the logits with numpy: softmax(logits[i])[id of text[i + 1]], for i = 0..n-2."""
    text = "ticket ab12cd closed. ref ab12cd"
    result = json.loads(cli(text, "--json").stdout)
    logits, _ = forward(DATA, encode(DATA, [text]))
    probs = np.exp(logits[0] - logits[0].max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    expected = [probs[i, DATA["vocab"].index(c)] for i, c in enumerate(text[1:])]
    assert len(result["next_probability"]) == len(text) - 1
    assert np.abs(np.array(result["next_probability"]) - expected).max() <= 1e-6


def test_seed_picks_another_shipped_model_and_a_bad_seed_is_refused():
    text = "lookup ab12cd"
    one = json.loads(cli(text, "--json", "--seed", "1").stdout)
    assert one["seed"] == 1 and one["probability"] == mha.text.read(mha.text.load(1), text).probability
    assert one["probability"] != json.loads(cli(text, "--json").stdout)["probability"]
    done = cli(text, "--seed", "7")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "error: argument --seed: invalid choice: 7 (choose from 0, 1, 2)"
    with pytest.raises(ValueError, match="no model was shipped for seed 7: the seeds are 0, 1, 2"):
        mha.text.load(7)


def test_off_is_repeatable_and_switches_those_heads_off():
    text = "ticket ab12cd closed. ref ab12c"
    result = json.loads(cli(text, "--json", "--off", "0.1", "--off", "1.0").stdout)
    assert result["probability"] == mha.text.read(MODEL, text, [(0, 1), (1, 0)]).probability
    assert result["probability"] != mha.text.read(MODEL, text).probability


def test_without_json_a_table_of_every_position():
    done = cli("abc")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "seed 0" and lines[1].split() == ["pos", "char", "guess", "p", "p(next)"]
    reading = mha.text.read(MODEL, "abc")
    for i, line in enumerate(lines[2:5]):
        assert line.split()[:2] == [str(i), repr("abc"[i])]
        assert float(line.split()[-1 if i == 2 else -2]) == pytest.approx(reading.probability[i], abs=5e-4)
    assert float(lines[2].split()[-1]) == pytest.approx(reading.probabilities[0][MODEL.vocab.index("b")], abs=5e-4)
    assert len(lines) == 2 + 3 + 1 + 8  # seed, header, 3 positions, the roles' header, 8 heads


@pytest.mark.parametrize("args, sentence", [
    (["price 12 €"], "'€' (position 9) is not in the model's 65 characters"),
    (["x" * 140], "140 characters is longer than the model's context of 128"),
    ([""], "the text is empty: type at least one character"),
    (["abc", "--off", "5.0"], "head 5.0 does not exist: the model has layers 0-1, heads 0-3 in each"),
    (["abc", "--off", "x"], "error: argument --off: 'x' is not a head: write layer.head, e.g. 0.1"),
], ids=["character", "too long", "empty", "no such head", "not a head"])
def test_bad_input_prints_its_sentence_and_exits_2(args, sentence):
    done = cli(*args)
    assert (done.returncode, done.stdout, done.stderr.strip()) == (2, "", sentence)


def test_the_wheel_and_its_later_archive_carry_every_seed_s_model_and_mha_text_loads_them(tmp_path):
    """The page unpacks build.py's wheel, then (as section 9 nears) its "later" archive, into one folder and imports mha
    from it: model-SEED.json must be found there by importlib.resources, and the wheel alone must lack them."""
    import zipfile

    import build
    name, data = build._build_wheel()
    later_name, later = build._later_archive("text-models")
    for archive in (data, later):
        with zipfile.ZipFile(io.BytesIO(archive)) as files:
            files.extractall(tmp_path / "site")
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        assert not [n for n in wheel.namelist() if n.startswith("mha/text/model-")]
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import mha.text; m = mha.text.load(); "
             "print(mha.text.__file__.startswith(sys.argv[1]), m.about['parameters'], mha.text.read(m, 'ab').guess, "
             "[mha.text.load(s).about['seed'] for s in mha.text.SEEDS])")
    out = subprocess.run([sys.executable, "-I", "-c", probe, str(tmp_path / "site")], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split("\n")[0] == (f"True {MODEL.about['parameters']} "
                                          f"{mha.text.read(MODEL, 'ab').guess} [0, 1, 2]")
