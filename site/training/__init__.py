"""The trained model's section on the page: its state (state.py), its worker (worker.py), its glue (glue.py)."""
