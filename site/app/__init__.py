"""The page's top floor, the only modules that touch the browser: main.py (the page's script), cells.py, training.py."""
