# Train the two-layer model, printing the pair's top scores every 20 steps.
# The same mha.training as the Train button above, on the build-time
# run's schedule (horizon=800). At 60 steps both scores are still near
# where they started: raise steps to 300 to watch them climb.
import mha.training as training

steps = 60
seed = 0
held_out = training.held_out(32)  # the first 32 held-out sequences: quick


def progress(step, loss, params):
    if (step + 1) % 20 == 0:  # the pair: layer 0 feeds layer 1
        heads = training.head_scores(params, held_out)
        previous = max(head["previous_token"] for head in heads
                       if head["layer"] == 0)
        induction = max(head["induction"] for head in heads
                        if head["layer"] == 1)
        print(f"step {step + 1:3}: loss {loss:.3f}, layer 0 previous-token "
              f"{previous:.2f}, layer 1 induction {induction:.2f}")


params = training.train(seed, steps, progress, horizon=800)
print(f"held-out accuracy (32 sequences): "
      f"{training.accuracy(params, held_out):.1%}")
