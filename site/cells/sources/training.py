# Train the two-layer model, printing its top two scores as it learns.
# The same mha.training as the Train button above, on the build-time
# run's schedule (horizon=800). The page ends a cell at 5 s, so this one
# stops itself after `seconds`, long before the pair forms (~300 steps).
import time

import mha.training as training

steps = 300
seconds = 2.5
seed = 0
held_out = training.held_out(32)  # the first 32 held-out sequences: quick
start = time.perf_counter()


def progress(step, loss, params):
    if (step + 1) % 10 == 0:
        heads = training.head_scores(params, held_out)
        previous = max(head["previous_token"] for head in heads)
        induction = max(head["induction"] for head in heads)
        print(f"step {step + 1:3}: loss {loss:.3f}, top previous-token "
              f"{previous:.2f}, top induction {induction:.2f}")
    return time.perf_counter() - start < seconds  # False stops training


params = training.train(seed, steps, progress, horizon=800)
print(f"held-out accuracy (32 sequences): "
      f"{training.accuracy(params, held_out):.1%}")
