# Train the two-layer model for a few steps, then measure its heads.
# The same mha.training as the Train button above; raise `steps` for more
# (the heads take a few hundred steps to form; the cell stops at 5 s).
import mha.training as training

steps = 60
seed = 0


def every_25(step, loss, params):
    if (step + 1) % 25 == 0:
        print(f"step {step + 1:3}: batch loss {loss:.3f}")


params = training.train(seed, steps, every_25)
held_out = training.held_out(64)  # the first 64 held-out sequences: quick
print(f"held-out accuracy: {training.accuracy(params, held_out):.1%}")
for head in training.head_scores(params, held_out):
    print(f"layer {head['layer']} head {head['head']}: "
          f"previous-token {head['previous_token']:.2f}, "
          f"induction {head['induction']:.2f}")
