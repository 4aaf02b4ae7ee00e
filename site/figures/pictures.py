"""Pictures next to the numbers (section 3): attention lines per head.

- attention_picture: beside each head's weight table (figures/heads.py head_tables), one line
  from every query token (left) to every key (right), its stroke-opacity the weight. The lines
  come in the table's cell order, so boot.js's mhaPatch moves each line's opacity with its cell
  (no extra data per keystroke). aria-hidden: the table is the accessible source.

No math here: mha computes every weight the lines draw. The pictures have no element of their own
(heads.py puts them in its tables), so it is no family of figures.__init__.FAMILIES.
"""

# --- the attention lines, one picture per head ----------------------------------------

PICTURE_TOKENS = 8  # lines for up to this many queries and keys; past it they tangle, and the table shows it all
ROW = 24            # picture units between two tokens
TOP = 16            # room for the 'query' and 'key' headings
LEFT, RIGHT, WIDTH = 18, 62, 80  # where lines start and end, and the picture's width


def pictured(weights):
    """True if a picture is drawn for these weights (n x m, both at most PICTURE_TOKENS)."""
    return len(weights) <= PICTURE_TOKENS and len(weights[0]) <= PICTURE_TOKENS


def _ys(count, rows):
    """The y of each of `count` tokens, centred in a column of `rows` token places."""
    offset = TOP + (rows - count) * ROW / 2
    return [offset + ROW * (i + 0.5) for i in range(count)]


def attention_picture(weights):
    """weights: n x m softmax rows -> an aria-hidden <svg>: a line per (query, key), stroke-opacity = weight.

    Each query's lines and label sit in <g class='attn-q' data-query=i> (boot.js lights a query's
    row there); the lines (class 'attn-line') come row by row, the order of the table's cells.
    """
    n, m = len(weights), len(weights[0])
    rows = max(n, m)
    height = TOP + rows * ROW + 2
    qy, ky = _ys(n, rows), _ys(m, rows)
    queries = [["g", {"class": "attn-q", "data-query": str(i)},
                ["text", {"x": str(LEFT - 6), "y": f"{qy[i] + 4:g}", "text-anchor": "end"}, str(i)],
                *[["line", {"class": "attn-line", "x1": str(LEFT), "y1": f"{qy[i]:g}", "x2": str(RIGHT),
                            "y2": f"{ky[j]:g}", "stroke-opacity": repr(w)}]
                  for j, w in enumerate(row)]]
               for i, row in enumerate(weights)]
    keys = [["text", {"x": str(RIGHT + 6), "y": f"{y + 4:g}"}, str(j)] for j, y in enumerate(ky)]
    return ["svg", {"class": "attn-picture", "viewBox": f"0 0 {WIDTH} {height:g}", "aria-hidden": "true",
                    "focusable": "false"},
            ["text", {"class": "attn-heading", "x": "0", "y": "10"}, "query"],
            ["text", {"class": "attn-heading", "x": str(WIDTH), "y": "10", "text-anchor": "end"}, "key"],
            ["g", {"class": "attn-keys"}, *keys], *queries]


def pictures_note(weights):
    """Said once above the tables when the pictures are left out (more than PICTURE_TOKENS tokens)."""
    return ["p", {"class": "note pictures-note"},
            f"Line pictures are drawn for up to {PICTURE_TOKENS} tokens; with {len(weights)} queries and "
            f"{len(weights[0])} keys they would be a tangle, so the coloured tables carry every weight alone."]

