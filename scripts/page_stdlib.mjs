// The page's own standard library: the modules its Python imports, each as source and as bytecode.
//
//   node scripts/page_stdlib.mjs OUT.zip < names.json     ["json", "html", "pyodide.ffi", ...]
//   writes OUT.zip and prints                              {"modules": [...], "missing": [...]}
//
// Pyodide's python_stdlib.zip holds sources only, so every start compiles the ~150 modules Pyodide
// imports while it starts: on the 2-core test machine that compiling is most of the 2.5-3 s its
// start-up takes. The page's interpreter runs only the site's own code (a reader's code runs in the
// cells' worker, which keeps the whole standard library), so build.py gives it a smaller zip: the
// modules Pyodide imports at start, plus those named in names.json (every module the site's Python,
// mha and PyScript's package import, anywhere in their files) and what they import in turn. Each is
// there as its source (tracebacks show lines) and an unchecked-hash .pyc beside it, which zipimport
// loads before the source: nothing is compiled at start. Data files (not .py) are kept as they are.
// Compiled by this same pinned Pyodide, so the bytecode is what it would have made itself.
import { loadPyodide } from "pyodide";
import { readFileSync } from "node:fs";
import { dirname, basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const out = resolve(process.argv[2]);
let input = "";
for await (const chunk of process.stdin) input += chunk;

const pyodide = await loadPyodide({ stdout: (line) => console.error(line), stderr: (line) => console.error(line) });
const stdlib = resolve(dirname(fileURLToPath(import.meta.resolve("pyodide"))), "python_stdlib.zip");
pyodide.FS.writeFile("/vendored.zip", readFileSync(stdlib));
pyodide.FS.mkdirTree("/out");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: dirname(out) }, "/out");
pyodide.globals.set("names_json", input);
pyodide.globals.set("out_path", `/out/${basename(out)}`);
const report = pyodide.runPython(`
import importlib, importlib._bootstrap_external as external, importlib.util, json, sys, zipfile

ZIP = "/lib/python314.zip/"  # where Pyodide puts the standard library it loaded


def loaded():
    """The standard library's modules imported so far, as their paths in the zip."""
    return {name: module.__file__[len(ZIP):] for name, module in list(sys.modules.items())
            if (getattr(module, "__file__", None) or "").startswith(ZIP)}


vendored = zipfile.ZipFile("/vendored.zip")
in_zip = {path.removesuffix("/__init__.py").removesuffix(".py").replace("/", ".")
          for path in vendored.namelist() if path.endswith(".py")}
missing = []
for name in json.loads(names_json):
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        module = ".".join(parts[:end])
        if module in in_zip and module not in sys.modules:
            try:
                importlib.import_module(module)
            except Exception as error:  # a module that cannot run here (e.g. needs a browser): say so
                missing.append(f"{module}: {error}")
modules = loaded()
keep = set(modules.values())

with zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as page:
    for info in vendored.infolist():
        if info.filename.endswith(".py") and info.filename not in keep:
            continue
        data = vendored.read(info)
        page.writestr(info, data)
        if info.filename in keep:
            code = compile(data, ZIP + info.filename, "exec", dont_inherit=True)
            compiled = zipfile.ZipInfo(info.filename[:-3] + ".pyc", info.date_time)
            compiled.compress_type = zipfile.ZIP_DEFLATED
            compiled.external_attr = info.external_attr
            pyc = external._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            page.writestr(compiled, bytes(pyc))
json.dumps({"modules": sorted(modules), "missing": missing})
`);
process.stdout.write(report);
