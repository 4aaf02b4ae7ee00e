"""Code cells' PyScript glue (placeholder until the cells land)."""


def setup(show):
    """show(tokens): send tokens to the live figure."""
