"""The lesson's worked example (section 3) and its exercise (section 4).

Tuples of tuples: every module shares these rows, so none can change them (list(row) for a copy).
"""

# Slots 0-1 say "which object", slots 2-3 are a time stamp; head 0 reads 0-1, head 1 reads 2-3.
LESSON_TOKENS = ((1.0, 0.0, 0.0, 1.0), (0.9, 0.1, 1.0, 0.0))
LESSON_HEADS = 2

# The exercise: token 1's time slots set to token 0's; only head 1 answers.
EXERCISE_TOKENS = ((1.0, 0.0, 0.0, 1.0), (0.9, 0.1, 0.0, 1.0))

# Cross-attention's second sequence (section 7): three context tokens that supply keys and values.
LESSON_CONTEXT = ((1.0, 0.0, 1.0, 0.0), (0.0, 1.0, 0.0, 1.0), (0.9, 0.1, 0.0, 1.0))

# Section 9, softmax competition. Read by the last token (the query) under a causal mask:
# token 0 is the relevant token, then k distractors, then the query. Dot products with the query:
# slots 0-1 (head 0): token 0 8, the query itself 4, a distractor 0 (token 0 is the best match);
# slots 2-3 (head 1): token 0 2, the query 4, a distractor 6 (every distractor beats token 0).
# All four slots (the one wide head) are the sums: 10, 8, 6. Distractors: other records that
# differ among themselves in slot 1, which the query ignores. Cycled.
COMPETITION_QUERY = (2.0, 0.0, 2.0, 0.0)
COMPETITION_RELEVANT = (4.0, 0.0, 1.0, 0.0)
COMPETITION_DISTRACTORS = ((0.0, 2.0, 3.0, 0.0), (0.0, -2.0, 3.0, 0.0))
COMPETITION_HEADS = 2

# Section 1: why one head is not enough. The query (token 2, last, causal) matches token 0 in
# head 0's slots 0-1 and token 1 in head 1's slots 2-3, and both equally over all four slots:
# each head returns one token's value, the one wide head returns about half of each.
BLEND_TOKENS = ((6.0, 0.0, 1.0, 1.0), (1.0, 1.0, 6.0, 0.0), (1.0, 0.0, 1.0, 0.0))
BLEND_HEADS = 2

# Section 2: the published model whose attention costs sit beside the reader's (mha.MODEL_SHAPES).
COST_MODEL = "Llama-3-8B"
