// Which standard modules the page's Python needs: those Pyodide imports while it starts, and those
// named in names.json with what they import in turn. build.py makes pyodide/page_stdlib.zip of them.
//
//   node scripts/page_stdlib.mjs < names.json     ["json", "html", "pyodide.ffi", ...]
//   prints                                       {"modules": {"json.decoder": "json/decoder.py", ...},
//                                                 "missing": ["name: why it could not be imported", ...]}
//
// Why: Pyodide's python_stdlib.zip holds sources only, so every start compiles the ~150 modules
// Pyodide imports while it starts: on the 2-core test machine that compiling is most of the 2.5-3 s
// its start-up takes. The page's interpreter runs only the site's own code (a reader's code runs in
// the cells' worker, which adds the rest of the library from pyodide/stdlib_rest.zip), so it can
// start from a zip of just these modules, each with bytecode. Imported here, in this same pinned
// Pyodide, so the list is the one the browser's Pyodide would import (paths relative to the zip).
import { loadPyodide } from "pyodide";

let input = "";
for await (const chunk of process.stdin) input += chunk;

const pyodide = await loadPyodide({ stdout: (line) => console.error(line), stderr: (line) => console.error(line) });
pyodide.globals.set("names_json", input);
process.stdout.write(pyodide.runPython(`
import importlib, importlib.util, json, sys

ZIP = next(path for path in sys.path if path.endswith(".zip")) + "/"  # where Pyodide put the library
missing = []
for name in json.loads(names_json):
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        module = ".".join(parts[:end])
        if module in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            break  # not a package, or not there: not the standard library's
        if spec is None or not (spec.origin or "").startswith(ZIP):
            continue
        try:
            importlib.import_module(module)
        except Exception as error:  # a module that cannot run here (e.g. needs a browser): say so
            missing.append(f"{module}: {error}")
modules = {name: module.__file__[len(ZIP):] for name, module in list(sys.modules.items())
           if (getattr(module, "__file__", None) or "").startswith(ZIP)}
json.dumps({"modules": dict(sorted(modules.items())), "missing": missing})
`));
