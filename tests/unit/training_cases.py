"""Train 20 steps of seed 0 and print one JSON line: the losses and the final params.

Used by test_training_pyodide.py; standalone so it can be fed to CPython and to Pyodide.
"""

import json

from mha.training import train

losses = []
params = train(seed=0, steps=20, callback=lambda step, loss, params: losses.append(loss))
print(json.dumps({"losses": losses, "params": params}))
