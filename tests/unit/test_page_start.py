"""What the page's start-up is made of: its own standard library with bytecode, its archives unzipped in
JavaScript (site/archives.mjs), and the files <head> fetches early. No browser: Pyodide and the zip
reader run under Node; the references are CPython's zipfile and re."""

import hashlib
import json
import re
import subprocess
import zipfile

import pytest

import build

VENDORED_STDLIB = build.NODE_MODULES / "pyodide" / "python_stdlib.zip"
# `import a, b.c as d` and `from a.b import c`, one statement per line or between semicolons (PyScript's
# package is minified that way). A second reading of the sources, independent of build.py's ast walk.
IMPORT = re.compile(r"^(?:import\s+(?P<names>[\w., ]+)|from\s+(?P<module>[\w.]+)\s+import\b)")


def _node(script, *args, timeout=300):
    """Run an ES module given as text in Node from the project's root (so "pyodide" resolves); its stdout."""
    done = subprocess.run(["node", "--input-type=module", "-e", script, *map(str, args)],
                          capture_output=True, text=True, cwd=build.ROOT, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _page_stdlib(built_site):
    return built_site / "pyodide" / build.PAGE_STDLIB


def _stdlib_modules(archive):
    """{module name: its .py path} of a standard library zip."""
    modules = {}
    for path in archive.namelist():
        if path.endswith("/__init__.py"):
            modules[path[:-len("/__init__.py")].replace("/", ".")] = path
        elif path.endswith(".py"):
            modules[path[:-3].replace("/", ".")] = path
    return modules


def _imported_by(text):
    """Module names a Python source imports, read line by line with a regular expression."""
    names = set()
    for line in text.splitlines():
        for statement in line.split(";"):
            match = IMPORT.match(statement.strip())
            if match and match["module"]:
                names.add(match["module"])
            elif match:
                names.update(part.split(" as ")[0].strip() for part in match["names"].split(","))
    return names


def _pages_python(built_site):
    """Every source the page's interpreter may run: the site's modules and entry, mha, PyScript's package. Not mha's
    __main__.py files: `python -m mha...` runs in a terminal, never on the page (a cell's import of argparse comes
    from stdlib_rest.zip)."""
    sources = {p.as_posix(): p.read_text() for p in build.SITE.rglob("*.py")
               if "__pycache__" not in p.parts and build.CELL_SOURCES not in p.as_posix()}
    sources |= {p.as_posix(): p.read_text() for p in (build.PY / "mha").rglob("*.py") if p.name != "__main__.py"}
    return sources | build._pyscript_sources(built_site)


def test_the_page_stdlib_is_the_vendored_sources_each_with_its_bytecode(built_site):
    """Every .py in page_stdlib.zip is byte for byte the vendored one, with an unchecked-hash .pyc beside it
    (PEP 552 flags 0b01: zipimport takes it without reading the source); every file that is not Python is
    kept as it is; and it is smaller than the whole library it stands in for."""
    with zipfile.ZipFile(VENDORED_STDLIB) as vendored, zipfile.ZipFile(_page_stdlib(built_site)) as page:
        page_names = set(page.namelist())
        sources = {n for n in page_names if n.endswith(".py")}
        assert len(sources) > 100 and {"json/decoder.py", "html/entities.py", "_pyodide/_base.py"} <= sources
        for name in sources:
            assert page.read(name) == vendored.read(name), name
            pyc = page.read(name + "c")
            assert pyc[4:8] == (0b01).to_bytes(4, "little"), name
        assert {n for n in page_names if n.endswith(".pyc")} == {n + "c" for n in sources}
        other = [n for n in vendored.namelist() if not n.endswith((".py", "/"))]  # folders need no entry
        assert other and all(page.read(n) == vendored.read(n) for n in other)
        assert page_names == sources | {n + "c" for n in sources} | set(other)
    assert _page_stdlib(built_site).stat().st_size < VENDORED_STDLIB.stat().st_size


def test_the_page_stdlib_has_every_standard_module_the_pages_python_imports(built_site):
    """Whatever the site's modules, mha or PyScript's package import (at the top or inside a function) from
    the standard library is in the page's zip, with its packages: the page's interpreter has no other."""
    with zipfile.ZipFile(VENDORED_STDLIB) as vendored, zipfile.ZipFile(_page_stdlib(built_site)) as page:
        stdlib, shipped = _stdlib_modules(vendored), _stdlib_modules(page)
    wanted = set()
    for text in _pages_python(built_site).values():
        for name in _imported_by(text):
            parts = name.split(".")
            wanted |= {".".join(parts[:end]) for end in range(1, len(parts) + 1)} & set(stdlib)
    assert {"json", "html", "random", "asyncio"} <= wanted  # the reading works
    assert sorted(wanted - set(shipped)) == []


def test_pyodide_starts_from_the_page_stdlib_without_compiling_a_module(built_site):
    """The pinned Pyodide, started from page_stdlib.zip, imports every standard module of its start and the
    page's (html, for PyScript's package) from bytecode; a traceback through one still shows its source."""
    out = _node("""
import { loadPyodide } from "pyodide";
const pyodide = await loadPyodide({ stdLibURL: process.argv[1] });
process.stdout.write(pyodide.runPython(`
import html, json, sys, traceback
ZIP = "/lib/python314.zip/"
files = {name: module.__file__ for name, module in list(sys.modules.items())  # frozen ones never compile
         if (getattr(module, "__file__", None) or "").startswith(ZIP) and module.__spec__.origin != "frozen"}
try:
    json.loads("{")
except ValueError:
    shown = traceback.format_exc()
json.dumps({"modules": len(files), "from_source": sorted(n for n, f in files.items() if not f.endswith(".pyc")),
            "traceback": shown})
`));
""", _page_stdlib(built_site))
    result = json.loads(out)
    assert result["modules"] > 100 and result["from_source"] == []
    frame = re.search(r'File "/lib/python314\.zip/json/decoder\.py", line \d+, in raw_decode\n +(\S.*)',
                      result["traceback"])
    assert frame and "scan_once" in frame.group(1), result["traceback"]


def test_the_rest_zip_holds_every_other_module_of_the_library(built_site):
    """stdlib_rest.zip is the vendored library's sources the page's zip left out, byte for byte: between the
    two, each module of Pyodide's library is in exactly one place (the workers start from the page's)."""
    with zipfile.ZipFile(VENDORED_STDLIB) as vendored, zipfile.ZipFile(_page_stdlib(built_site)) as page, \
            zipfile.ZipFile(built_site / "pyodide" / build.STDLIB_REST) as rest:
        sources = {n for n in vendored.namelist() if n.endswith(".py")}
        in_page = {n for n in page.namelist() if n.endswith(".py")}
        assert set(rest.namelist()) == sources - in_page
        assert {"statistics.py", "json/tool.py", "email/mime/text.py"} <= set(rest.namelist())
        assert all(rest.read(n) == vendored.read(n) for n in rest.namelist())


FIND_EVERY_MODULE = """
import { loadPyodide } from "pyodide";
import { readFileSync } from "node:fs";
const [names, stdlib, rest, finder] = process.argv.slice(1);
const pyodide = await loadPyodide(stdlib ? { stdLibURL: stdlib } : {});
if (rest) {
  pyodide.FS.writeFile("/lib/stdlib_rest.zip", readFileSync(rest));
  pyodide.FS.writeFile("/home/pyodide/stdlib_rest.py", readFileSync(finder));
  pyodide.runPython("import stdlib_rest; stdlib_rest.install('/lib/stdlib_rest.zip')");
}
process.stdout.write(pyodide.runPython(`
import importlib.util, json, pkgutil
found = {"(listed by pkgutil)": sorted(module.name for module in pkgutil.iter_modules()
                                      if getattr(module.module_finder, "archive", "").endswith(".zip"))}
for name in json.loads(${JSON.stringify(readFileSync(names, "utf8"))}):
    try:
        spec = importlib.util.find_spec(name)
        found[name] = spec and spec.origin.rpartition(".zip/")[2].removesuffix("c")  # a .pyc stands for its .py
    except Exception as error:
        found[name] = type(error).__name__
json.dumps(found)
`));
"""


def test_a_worker_finds_every_standard_module_a_stock_pyodide_finds(built_site, tmp_path):
    """Started as worker.mjs starts it (the page's zip, then the rest through site/stdlib_rest.py), Pyodide
    finds each module of the library where a stock one, started from the whole vendored zip, finds it: the
    same file (or frozen, or the same error), also inside packages split between the two zips; and pkgutil
    lists the same top-level modules."""
    names = tmp_path / "names.json"
    with zipfile.ZipFile(VENDORED_STDLIB) as vendored:
        names.write_text(json.dumps(sorted(_stdlib_modules(vendored))))
    stock = json.loads(_node(FIND_EVERY_MODULE, names, ""))
    ours = json.loads(_node(FIND_EVERY_MODULE, names, _page_stdlib(built_site),
                            built_site / "pyodide" / build.STDLIB_REST, build.SITE / "stdlib_rest.py"))
    assert len(stock) > 400 and stock["json.tool"] == "json/tool.py" and stock["statistics"] == "statistics.py"
    assert "statistics" in stock["(listed by pkgutil)"]
    assert {name: (found, ours[name]) for name, found in stock.items() if ours[name] != found} == {}


UNZIP = """
import { unzip } from "./site/archives.mjs";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
const bytes = readFileSync(process.argv[1]);
try {
  const files = await unzip(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), "test.zip");
  const digest = (data) => createHash("sha256").update(data).digest("hex");
  process.stdout.write(JSON.stringify(Object.fromEntries(files.map(([path, data]) => [path, digest(data)]))));
} catch (error) {
  process.stdout.write(JSON.stringify({ error: error.message }));
}
"""


def _unzipped_in_javascript(path):
    return json.loads(_node(UNZIP, path))


def _digests(path):
    with zipfile.ZipFile(path) as archive:
        return {n: hashlib.sha256(archive.read(n)).hexdigest() for n in archive.namelist() if not n.endswith("/")}


def test_archives_mjs_unzips_the_built_archives_as_zipfile_does(built_site):
    """The page's zip reader gives every file of mha's wheel and of the site's modules, with the bytes
    Python's zipfile reads from them."""
    for path in [*built_site.glob("wheels/*/*.whl"), *built_site.glob(f"modules/*/{build.SITE_ARCHIVE}")]:
        expected = _digests(path)
        assert len(expected) > 20 and _unzipped_in_javascript(path) == expected, path.name


def test_archives_mjs_reads_stored_files_a_comment_and_folders(tmp_path):
    path = tmp_path / "mixed.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/", b"")
        archive.writestr(zipfile.ZipInfo("pkg/stored.py"), b"A = 1\n" * 50)  # ZIP_STORED
        archive.writestr("pkg/deflated.py", b"B = 2\n" * 50, compress_type=zipfile.ZIP_DEFLATED)
        archive.comment = b"a comment after the directory"
    assert _unzipped_in_javascript(path) == _digests(path)


@pytest.mark.parametrize("name", ["../outside.py", "/absolute.py", "pkg/../../outside.py"])
def test_archives_mjs_refuses_a_file_that_leaves_its_folder(tmp_path, name):
    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("fine.py", b"")
        archive.writestr(name, b"import os\n")
    assert _unzipped_in_javascript(path) == {"error": f"test.zip: {name} leaves its folder"}


def test_archives_mjs_refuses_what_is_not_a_zip(tmp_path):
    path = tmp_path / "page.zip"
    path.write_bytes(b"<!doctype html><p>not found</p>")
    assert _unzipped_in_javascript(path) == {"error": "test.zip is not a zip archive"}


def test_every_file_head_fetches_early_is_one_start_up_uses(built_site):
    """<link rel=preload|modulepreload>: each names a built file, and among them are the config, both
    archives, the page's standard library and PyScript's main chunk (their names carry hashes)."""
    head = (built_site / "index.html").read_text().split("</head>")[0]
    links = re.findall(r'<link rel="(?:preload|modulepreload)" href="\./([^"]+)"', head)
    assert [link for link in links if not (built_site / link).is_file()] == []
    config = json.loads((built_site / "pyscript.json").read_text())
    core, _ = build._pyscript_core(built_site)
    expected = {"pyscript.json", f"pyodide/{build.PAGE_STDLIB}", f"pyscript/{core}", "archives.mjs", build.ENTRY,
                *(path.removeprefix("./") for path in config["archives"])}
    assert expected <= set(links) and "pyodide/python_stdlib.zip" not in links
