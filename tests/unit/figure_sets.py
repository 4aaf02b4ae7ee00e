"""Which figures the sweep leaves out, which are static, which read section 8's run, and what a broken print is.

Shared by test_sweep.py (every static figure built from the default state) and test_training_page.py (the one
static figure that reads the build-time run, checked in the file that waits for the build).
"""

import re

from figures import FIGURES

# Out of the sweep's product: section 1's blend (swept over typed tokens at the end of test_sweep.py) and section 2's
# cost figure (test_recipe_figures.py)
SKIPPED = {"fig-blend", "fig-recipe-costs", "fig-recipe-line", "fig-cost-seq-len", "fig-cost-share"}
STATIC = sorted(fid for fid, figure in FIGURES.items()  # drawn once at build time from the default state
                if not figure.redraw and fid not in SKIPPED and not fid.startswith(("fig-train", "fig-probe")))
READ_THE_RUN = {"q-trained"}  # static figures that read section 8's build-time run: test_training_page.py
BROKEN = re.compile(r"\b(nan|NaN|inf|Inf|Infinity|None|undefined)\b")  # what a figure must never print
