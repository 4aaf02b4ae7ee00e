"""python -m mha: the lesson's worked example in the terminal, or your own tokens.

    python -m mha
    python -m mha --tokens "1,0,0,1; 0.9,0.1,0,1" --heads 2 --causal
"""

import argparse
import sys

from . import LESSON_HEADS, LESSON_TOKENS, multi_head_attention, parse_tokens, single_head_attention


def parse_token_text(text):
    """'1,0,0,1; 0.9,0.1,1,0' -> [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]], checked as the page checks it."""
    return parse_tokens([row.split(",") for row in text.split(";") if row.strip()])


def format_rows(weights):
    """Softmax rows as lines of 4-decimal numbers."""
    return ["  [" + ", ".join(f"{w:.4f}" for w in row) + "]" for row in weights]


def report(tokens, heads, kv_heads=None, causal=False):
    """The lines printed: each head's rows, then the one wide head's."""
    result = multi_head_attention(tokens, heads, kv_heads=kv_heads, causal=causal)
    lines = []
    for h, (weights, (start, stop)) in enumerate(zip(result.weights, result.head_slots)):
        shared = f", key/value head {result.kv_head_of[h]}" if kv_heads else ""
        lines.append(f"head {h} (slots {start}-{stop - 1}{shared}):")
        lines += format_rows(weights)
    _, wide = single_head_attention(tokens, causal=causal)
    lines.append(f"one head over all {len(tokens[0])} slots:")
    lines += format_rows(wide)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mha", description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", help='token vectors, e.g. "1,0,0,1; 0.9,0.1,1,0" (default: the lesson\'s)')
    parser.add_argument("--heads", type=int, default=LESSON_HEADS, help="query heads (divides the width)")
    parser.add_argument("--kv-heads", type=int, help="key/value heads (divides --heads)")
    parser.add_argument("--causal", action="store_true", help="each token attends only to itself and earlier ones")
    args = parser.parse_args(argv)
    try:
        tokens = parse_token_text(args.tokens) if args.tokens else LESSON_TOKENS
        print("\n".join(report(tokens, args.heads, args.kv_heads, args.causal)))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
