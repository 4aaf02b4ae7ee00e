// Compile Python sources to bytecode inside the pinned Pyodide under Node, for the site's archives.
//
//   node scripts/compile_pyc.mjs [PREFIX] < sources.json   {"mha/softmax.py": "<source>", ...}
//   prints                                        {"mha/__pycache__/softmax.cpython-314.pyc": "<base64>", ...}
//
// Each code object's file name (what a traceback shows) is PREFIX + the path: the path alone for the
// site's archives, "/lib/python314.zip/" + it for standard modules (where Pyodide keeps that zip).
//
// The browser's Python is this same Pyodide, so the bytecode is the one it would make itself. The
// .pyc files are unchecked-hash ones (PEP 552): imported without compiling the source and without
// comparing file times (an unpacked archive's times mean nothing). build.py calls this.
import { loadPyodide } from "pyodide";

let input = "";
for await (const chunk of process.stdin) input += chunk;

const pyodide = await loadPyodide({ stdout: (line) => console.error(line), stderr: (line) => console.error(line) });
pyodide.globals.set("sources_json", input);
pyodide.globals.set("prefix", process.argv[2] ?? "");
const compiled = pyodide.runPython(`
import base64, importlib.util, json, os, py_compile

def compiled(sources):
    out = {}
    for path, text in sources.items():
        full = os.path.join("/compile", path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as file:
            file.write(text)
        pyc = py_compile.compile(full, cfile=importlib.util.cache_from_source(full), dfile=prefix + path, doraise=True,
                                 invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        with open(pyc, "rb") as file:
            out[os.path.relpath(pyc, "/compile")] = base64.b64encode(file.read()).decode()
    return out

json.dumps(compiled(json.loads(sources_json)))
`);
process.stdout.write(compiled);
