"""python -m mha.text: what the shipped character model makes of a text.

    python -m mha.text 'get a7x2k9 ok a7x2k9'
    python -m mha.text 'get a7x2k9 ok a7x2k9' --off 0.1 --json
"""

import argparse
import json
import sys

from .model import load
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


def report(model, text, off=()):
    """The --json object: the text, each position's guess and its probability, each head's weights, the
    heads' scores measured on the held-out repeated random strings (the same whatever the text)."""
    reading = read(model, text, off)
    return {"text": reading.text, "guess": reading.guess, "probability": reading.probability,
            "heads": [{"layer": h["layer"], "head": h["head"], "weights": h["weights"]} for h in reading.heads],
            "scores": [{key: row[key] for key in ("layer", "head", "previous_token", "induction")}
                       for row in model.measurements.get("scores", [])]}


def table(result):
    """A short readable table: position, character, the guess for the next one, its probability; then the scores."""
    lines = ["pos  char  guess  p"]
    for i, (char, guess, p) in enumerate(zip(result["text"], result["guess"], result["probability"])):
        lines.append(f"{i:>3}  {char!r:<5} {guess!r:<6} {p:.3f}")
    lines.append("head  previous-token  induction  (on held-out repeated random strings)")
    lines += [f"{row['layer']}.{row['head']}   {row['previous_token']:.3f}           {row['induction']:.3f}"
              for row in result["scores"]]
    return "\n".join(lines)


def main(argv=None):
    parser = _Parser(prog="python -m mha.text", description="The shipped character model on a text.")
    parser.add_argument("text", help="what the model reads (lower-cased; at most its context)")
    parser.add_argument("--off", type=head_pair, action="append", default=[], metavar="L.H",
                        help="switch head H of layer L off (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    model = load()
    try:
        result = report(model, args.text, args.off)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
