"""The trained model's section on the page: its state (state.py) and its worker (worker.py); its glue is app/training.py."""
