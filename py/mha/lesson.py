"""The lesson's worked example (section 3) and its exercise (section 4)."""

# Slots 0-1 say "which object", slots 2-3 are a time stamp; head 0 reads 0-1, head 1 reads 2-3.
LESSON_TOKENS = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]
LESSON_HEADS = 2

# The exercise: token 1's time slots set to token 0's; only head 1 answers.
EXERCISE_TOKENS = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]]
