"""python -m mha.text: what a shipped character model makes of a text.

    python -m mha.text 'get a7x2k9 ok a7x2k9'
    python -m mha.text 'get a7x2k9 ok a7x2k9' --seed 1 --off 0.1 --json
"""

import argparse
import json
import sys

from .measure import ROLE_LIFT, ROLE_MIN
from .model import DEFAULT_SEED, SEEDS, load
from .reading import read


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad arguments: one line on stderr, exit code 2."""
        self.exit(2, f"error: {message}\n")


def head_pair(text):
    """'L.H' -> (L, H), or an argparse error naming it."""
    layer, dot, head = text.partition(".")
    if not (dot and layer.isdigit() and head.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a head: write layer.head, e.g. 0.1")
    return int(layer), int(head)


def next_probability(model, reading):
    """For each position but the last, the probability the model gave the text's actual next character."""
    return [row[model.vocab.index(char)] for row, char in zip(reading.probabilities, reading.text[1:])]


def report(model, text, off=()):
    """The --json object: the seed, the text, each position's guess and its probability, the probability given to
    the actual next character, each head's weights, and the heads' probe scores and roles measured on the
    model's held-out sets (the same whatever the text)."""
    reading = read(model, text, off)
    measured = model.measurements
    return {"seed": model.about.get("seed"), "text": reading.text, "guess": reading.guess,
            "probability": reading.probability, "next_probability": next_probability(model, reading),
            "heads": [{"layer": h["layer"], "head": h["head"], "weights": h["weights"]} for h in reading.heads],
            "scores": measured.get("scores", []),
            "roles": [{"layer": layer, "head": head, "role": role} for layer, head, role in measured.get("roles", [])]}


def table(result):
    """A short readable table: position, character, the guess for the next one, its probability, the probability
    of the actual next character; then each head's role."""
    lines = [f"seed {result['seed']}", "pos  char  guess  p      p(next)"]
    nexts = result["next_probability"] + [None]
    for i, (char, guess, p, q) in enumerate(zip(result["text"], result["guess"], result["probability"], nexts)):
        lines.append(f"{i:>3}  {char!r:<5} {guess!r:<6} {p:.3f}" + ("" if q is None else f"  {q:.3f}"))
    lines.append(f"head  role  (of its held-out scores of {ROLE_MIN} or more, the one the most times even weights' "
                 f"score, if {ROLE_LIFT} or more)")
    lines += [f"{row['layer']}.{row['head']}   {row['role'] or 'none'}" for row in result["roles"]]
    return "\n".join(lines)


def main(argv=None):
    parser = _Parser(prog="python -m mha.text", description="The shipped character model on a text.")
    parser.add_argument("text", help="what the model reads (lower-cased; at most its context)")
    parser.add_argument("--off", type=head_pair, action="append", default=[], metavar="L.H",
                        help="switch head H of layer L off (repeatable)")
    parser.add_argument("--seed", type=int, choices=SEEDS, default=DEFAULT_SEED,
                        help=f"which shipped model (default {DEFAULT_SEED})")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    model = load(args.seed)
    try:
        result = report(model, args.text, args.off)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
