"""python -m mha.training: train the two-layer model and probe its heads.

    python -m mha.training --seed 0
    python -m mha.training --seed 3 --steps 300 --json
"""

import argparse
import json
import sys
import time

from .probes import composition, evaluate, head_report
from .roles import classify
from .train import STEPS, train


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad arguments: one line on stderr, exit code 2."""
        self.exit(2, f"error: {message}\n")


def count(text):
    """A whole number >= 1 from the command line, or an argparse error naming it."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def whole(text):
    """A whole number (any sign) from the command line."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def run(seed, steps):
    """Train and probe; returns the --json object."""
    start = time.perf_counter()
    params = train(seed, steps)
    seconds = time.perf_counter() - start
    loss, accuracy = evaluate(params)
    heads = head_report(params)
    return {"seed": seed, "steps": steps, "seconds": round(seconds, 2), "loss": loss, "accuracy": accuracy,
            "heads": heads, "composition": composition(params), "circuit": classify(heads, accuracy)}


def lines(result):
    """The plain-text report of run()'s result."""
    out = [f"seed {result['seed']}, {result['steps']} steps in {result['seconds']:.1f} s: "
           f"held-out loss {result['loss']:.3f}, accuracy {result['accuracy']:.3f}"]
    for h in result["heads"]:
        out.append(f"layer {h['layer']} head {h['head']}: previous-token {h['previous_token']:.3f}, "
                   f"induction {h['induction']:.3f}, accuracy with it ablated {h['accuracy_ablated']:.3f}")
    for c in result["composition"]:
        out.append(f"layer {c['layer']} head {c['head']}'s induction with layer {c['ablated'][0]} head "
                   f"{c['ablated'][1]} ablated: {c['induction']:.3f}")
    out.append(circuit_line(result["circuit"]))
    return out


def circuit_line(circuit):
    """One sentence naming what formed (roles.classify's result)."""
    def name(pair):
        return f"layer {pair[0]} head {pair[1]}"
    if circuit["kind"] == "pair":
        return (f"circuit: {name(circuit['previous_token_head'])} (previous-token) -> "
                f"{name(circuit['induction_head'])} (induction)")
    previous = ("no earlier layer" if circuit["previous_token_head"] is None else
                f"{name(circuit['previous_token_head'])} {circuit['previous_token']:.3f}")
    return (f"circuit: no previous-token -> induction pair; top induction {name(circuit['induction_head'])} "
            f"{circuit['induction']:.3f}, top previous-token before it: {previous}")


def main(argv=None):
    parser = _Parser(prog="python -m mha.training", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=whole, required=True, help="seeds the initial params and the batches")
    parser.add_argument("--steps", type=count, default=STEPS, help=f"Adam steps (default {STEPS})")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    result = run(args.seed, args.steps)
    print(json.dumps(result) if args.json else "\n".join(lines(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
