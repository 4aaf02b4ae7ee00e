"""The rest of the standard library, in a worker started from the page's own (pyodide/page_stdlib.zip).

The page's zip holds only the modules the page's Python imports, with their bytecode, so a worker
starts as fast as the page and fetches no library twice. Every other module is in
pyodide/stdlib_rest.zip (build.py), for whatever a reader's cell imports: statistics, fractions, ...
Some packages are split between the two (json, encodings, asyncio, importlib, ...): the package comes
from the page's zip and its __path__ names only that zip, so RestOfStdlib, last on sys.meta_path,
looks for what the other finders missed at the same place inside the rest.
"""

import sys
from importlib.machinery import PathFinder


class RestOfStdlib:
    """A meta path finder: a module nobody else found, looked up in the rest's zip by its dotted name."""

    def __init__(self, archive):
        self.archive = archive

    def find_spec(self, name, path=None, target=None):
        folder = "/".join([self.archive, *name.split(".")[:-1]])  # 'json.tool' -> '<archive>/json'
        return PathFinder.find_spec(name, [folder])


def install(archive):
    """Make the modules of the zip at `archive` (a path in Pyodide's files) importable, after all others.

    RestOfStdlib alone finds every module; the zip is on sys.path too so that pkgutil (help('modules'))
    lists its modules, as it lists a stock Pyodide's.
    """
    sys.path.append(archive)
    sys.meta_path.append(RestOfStdlib(archive))
