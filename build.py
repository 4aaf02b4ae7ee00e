"""Build the lesson into dist/: the page, a self-hosted Pyodide + PyScript, and the mha wheel.

    python build.py            # writes dist/ (any static host, any sub-path, no CDN)
    python build.py serve      # builds, then serves it on http://127.0.0.1:8000/lesson/

Standard library only. Downloads are pinned and hash-checked: the npm packages
by package-lock.json (`npm ci`), the micropip wheel by MICROPIP_SHA256. They
stay in node_modules/ and .cache/, so a rebuild is offline and fast.
"""

import argparse
import ast
import base64
import contextlib
import functools
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SITE = ROOT / "site"
PY = ROOT / "py"
DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
NODE_MODULES = ROOT / "node_modules"
NPM_STAMP = NODE_MODULES / ".mha-package-lock.sha256"  # which package-lock.json node_modules matches

PYODIDE_VERSION = "314.0.7"  # Python 3.14 in the browser
PYSCRIPT_VERSION = "0.7.31"
# Pyodide's runtime; not its python_stdlib.zip: the site starts from PAGE_STDLIB, the workers add STDLIB_REST.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
MICROPIP_VERSION = "0.11.1"  # the version pyodide-lock.json names
MICROPIP_WHEEL = f"micropip-{MICROPIP_VERSION}-py3-none-any.whl"
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"  # PyPI's wheel

PRELOAD_MARK = "<!--preloads-->"  # index.html: the build's <link rel=preload>s for files with hashed names
PAGE_STDLIB = "page_stdlib.zip"  # pyodide/page_stdlib.zip: the page's interpreter's standard library
PAGE_LOCK = "page-lock.json"  # pyodide/page-lock.json: the page's interpreter's lock file, with no packages
STDLIB_REST = "stdlib_rest.zip"  # pyodide/stdlib_rest.zip: every other module, for a reader's imports in the workers
STDLIB_IN_PYODIDE = "/lib/python314.zip/"  # where Pyodide puts the standard library's zip: the code's file names
ENTRY = "app/main.py"  # the page's <script type="py">; every other module in site/ is shipped importable
SITE_ARCHIVE = "site-modules.zip"
CELL_SOURCES = "cells/sources"  # the code cells' text, pre-rendered into the page: not modules to import
PRERENDER = ("figures", "cells.view")  # modules whose prerender() fill index.html's <!--render:ID--> marks
EDITOR = ("cells/editor.mjs", "cells/editor.js")  # the cells' CodeMirror: its source, and its bundle in dist/
EDITOR_NOTICE = ("/* The code cells' editor: CodeMirror 6, Lezer, style-mod, crelt, w3c-keyname (MIT, "
                 "Marijn Haverbeke and others, https://codemirror.net), bundled by build.py */")
SKIP = ("__pycache__", ".pyc")
RENDER_MARK = re.compile(r"<!--render:([a-z0-9-]+)-->")      # a figure's pre-rendered trees
SECTION_MARK = re.compile(r"<!--section:([a-z0-9-]+)-->")    # site/sections/NAME.html, one lesson section
VALUE_MARK = re.compile(r"<!--value:([a-z0-9-]+)-->")        # a number in the prose, from figures.prose()
SOURCE_MAP = re.compile(rb"\n//# sourceMappingURL=\S+\s*$")
WHEEL_SUFFIXES = (".py", ".json")  # what py/mha ships: modules, and package data such as mha/text/model-0.json
# Package data the page reads only when a section comes near: left out of the page's wheel and served as an archive of
# its own (pyscript.json's "later"), the same files at the same paths. mha.text's three models are 0.6 MB packed;
# in the wheel they took the bytes before ready from 1.06 to 1.11 of bare Pyodide's.
LATER = {"text-models": "text/model-*.json"}  # name -> glob under py/mha
WHEEL_TIME = (1980, 1, 1, 0, 0, 0)  # fixed zip timestamps: the same sources give the same wheel
SUB_PATH = "/lesson/"
# The browser enforces "nothing is sent to a server": scripts, workers and connections from the
# page's own origin only (no inline scripts, no inline style attributes). What WebAssembly needs:
# 'wasm-unsafe-eval' to compile Pyodide, and 'unsafe-eval' because pyodide.asm.mjs builds its
# EM_ASM/EM_JS glue with eval() at start-up (without it: "Evaluating a string as JavaScript
# violates ... script-src"). Scripts still come from this origin only. Injected into the built page.
CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'",
    "worker-src blob:",  # workers start from blob: URLs, so they inherit this policy (boot.js startWorker)
    "connect-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
])
CHARSET = '<meta charset="utf-8">'
MEDIA_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
               ".json": "application/json", ".whl": "application/zip", ".py": "text/plain"}


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _npm_ci():
    """node_modules/ matching package-lock.json (npm checks every tarball's sha512), installed once."""
    lock_hash = _sha256((ROOT / "package-lock.json").read_bytes())
    if not (NPM_STAMP.exists() and NPM_STAMP.read_text() == lock_hash):
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("build.py needs Node.js with npm on PATH: npm ci fetches the pinned Pyodide and PyScript")
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
                       cwd=ROOT, check=True)
        NPM_STAMP.write_text(lock_hash)
    for name, version in (("pyodide", PYODIDE_VERSION), ("@pyscript/core", PYSCRIPT_VERSION)):
        found = json.loads((NODE_MODULES / name / "package.json").read_text())["version"]
        if found != version:
            sys.exit(f"node_modules has {name} {found}, build.py pins {version}: fix package.json")


def _micropip_wheel():
    """The pinned micropip wheel from PyPI, cached in .cache/ and checked against MICROPIP_SHA256."""
    wheel = CACHE / MICROPIP_WHEEL
    if not wheel.exists():
        CACHE.mkdir(exist_ok=True)
        done = subprocess.run([sys.executable, "-m", "pip", "download", f"micropip=={MICROPIP_VERSION}",
                               "--only-binary=:all:", "--python-version", "3.14", "--no-deps",
                               "--quiet", "--dest", str(CACHE)])
        if done.returncode:
            sys.exit(f"pip could not download micropip {MICROPIP_VERSION} (is pip installed for {sys.executable}?)")
    found = _sha256(wheel.read_bytes())
    if found != MICROPIP_SHA256:
        wheel.unlink()
        sys.exit(f"{MICROPIP_WHEEL} has sha256 {found}, expected {MICROPIP_SHA256}: deleted, not used")
    return wheel


def _copy_site(out):
    """site/'s static files and the entry script; index.html is rendered later, the modules go in one archive."""
    for path in sorted(SITE.rglob("*")):
        relative = path.relative_to(SITE)
        if path.is_dir() or path.name == "index.html" or relative.parts[0] in ("sections", "styles") or any(
                s in str(relative) for s in SKIP):
            continue
        if path.suffix == ".py" and relative.as_posix() != ENTRY:
            continue  # in _site_archive's zip (or, for the cell sources, pre-rendered into the page)
        if relative.as_posix() == EDITOR[0]:
            continue  # shipped bundled, by _bundle_editor
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out / relative)


def _write_styles(out):
    """dist/style.css: site/style.css, then each figure family's site/styles/*.css (one request, in name order)."""
    parts = [SITE / "style.css", *sorted((SITE / "styles").glob("*.css"))]
    (out / "style.css").write_text("\n".join(path.read_text() for path in parts))


def _site_modules():
    """site/**/*.py but the entry script and the cell sources: the packages app, figures, cells, training and page."""
    paths = (p.relative_to(SITE).as_posix() for p in SITE.rglob("*.py") if "__pycache__" not in p.parts)
    return sorted(p for p in paths if p != ENTRY and not p.startswith(CELL_SOURCES + "/"))


def _site_archive(out):
    """The site's modules and their bytecode, and PyScript's, as one zip under modules/<sha256 prefix>/:
    one request instead of a dozen."""
    files = _with_bytecode({name: (SITE / name).read_bytes() for name in _site_modules()})
    data = _zip({**files, **_pyscript_bytecode(out)})
    return _content_addressed(out, "modules", SITE_ARCHIVE, data)


def _pyscript_core(out):
    """The vendored PyScript's main chunk (core.js only re-exports it): its file name, and its text."""
    chunk = re.search(r'from"\./(core-[\w-]+\.js)"', (out / "pyscript" / "core.js").read_text())
    if not chunk:
        sys.exit("@pyscript/core's core.js no longer imports a core-*.js chunk: update _pyscript_core")
    return chunk.group(1), (out / "pyscript" / chunk.group(1)).read_text()


@functools.cache
def _pyscript_package():
    """((pyscript/NAME.py, text), ...): PyScript's own Python package as its npm package's src/stdlib holds it.

    Read once per process (a build asks for it twice: for the site archive and the page's library).
    """
    module = (NODE_MODULES / "@pyscript" / "core" / "src" / "stdlib" / "pyscript.js").as_uri()
    done = subprocess.run(["node", "--input-type=module", "-e",
                           f"import s from {json.dumps(module)}; process.stdout.write(JSON.stringify(s))"],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        sys.exit(f"could not read PyScript's Python package from {module}:\n{done.stderr[-2000:]}")

    def flat(tree, prefix=""):
        for name, value in tree.items():
            yield from [(prefix + name, value)] if isinstance(value, str) else flat(value, f"{prefix}{name}/")

    return tuple(flat(json.loads(done.stdout)))


def _pyscript_sources(out):
    """{pyscript/NAME.py: text}: PyScript's own Python package, which it writes into the working directory at start.

    Checked to be the very texts the bundle in `out` writes (a mismatch stops the build rather than
    compile or scan other code than what runs).
    """
    sources = dict(_pyscript_package())
    _, bundle = _pyscript_core(out)
    differ = [path for path, text in sources.items() if json.dumps(text, ensure_ascii=False) not in bundle]
    if differ or not sources:
        sys.exit(f"@pyscript/core's src/stdlib differs from its bundle for {differ or 'every file'}")
    return sources


def _pyscript_bytecode(out):
    """{pyscript/__pycache__/*.pyc: bytes}: PyScript's package compiled here, not on every load.

    PyScript writes its package's sources at start and imports them: compiling those 30 KB took
    about 35 ms of the page's start. These unchecked-hash pycs, unpacked beside them, are used instead.
    """
    sources = _pyscript_sources(out)
    compiled = _with_bytecode({path: text.encode() for path, text in sources.items()})
    return {path: data for path, data in compiled.items() if path not in sources}


def _imported_names(sources):
    """Every absolute module name the sources import, anywhere in them (top level or inside a function);
    for `from X import Y`, both X and X.Y (Y may be a submodule)."""
    names = set()
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return sorted(names)


# Modules a standard module imports only when a function of it runs: no import statement names them.
# importlib.resources.files() (mha.text's load(), reading model.json) imports these on its first call.
LAZY_IMPORTS = {"importlib.resources": ["importlib.resources._adapters", "importlib.resources.readers",
                                        "importlib.readers"]}


def _page_stdlib(out):
    """pyodide/page_stdlib.zip, the standard library the page's interpreter starts from: the modules Pyodide's
    start and the page's Python import (scripts/page_stdlib.mjs lists them, and says why), each as its
    vendored source beside an unchecked-hash .pyc, which zipimport takes first: no module is compiled
    at start. Files that are not Python are kept; the rest of the library goes to pyodide/stdlib_rest.zip,
    sources only, which the workers add after their start for a reader's imports.

    The names come from every file of Python the page's interpreter runs: the site's modules, mha and
    PyScript's package. The list and the bytecode are cached in .cache/ (_node_json).
    """
    sources = {path: (SITE / path).read_text() for path in [*_site_modules(), ENTRY]}
    sources |= {str(p.relative_to(PY)): p.read_text() for p in _page_mha_sources()}
    sources |= _pyscript_sources(out)
    names = _imported_names(sources)
    names += [lazy for name, later in LAZY_IMPORTS.items() if name in names for lazy in later]
    listed = _node_json("page_stdlib.mjs", sorted(names), "list the page's standard modules")
    if listed["missing"]:
        sys.exit(f"Pyodide under Node cannot import standard modules the page's Python imports: {listed['missing']}")
    needed = set(listed["modules"].values())
    files, rest = {}, {}  # the page's zip; the workers' rest: the other sources
    with zipfile.ZipFile(NODE_MODULES / "pyodide" / "python_stdlib.zip") as vendored:
        for info in vendored.infolist():
            if not info.is_dir():
                leftover = info.filename.endswith(".py") and info.filename not in needed
                (rest if leftover else files)[info.filename] = vendored.read(info)
    compiled = _with_bytecode(files, file_prefix=STDLIB_IN_PYODIDE)
    beside = {path + "c": compiled[_pycache(path)] for path in files if path.endswith(".py")}  # zipimport's place
    (out / "pyodide" / PAGE_STDLIB).write_bytes(_zip({**files, **beside}))
    # The workers start from the page's zip too (in the HTTP cache by then: no file is fetched twice) and
    # take the rest from here, as sources, for whatever a reader's cell imports (site/stdlib_rest.py).
    (out / "pyodide" / STDLIB_REST).write_bytes(_zip(rest))


def _page_mha_sources():
    """mha's modules that the page's interpreter may import: all but the __main__.py of `python -m mha...`, which
    only a terminal runs (argparse and gettext, 87 kB of the page's zip, were there for them alone; a cell that
    imports argparse gets it from stdlib_rest.zip)."""
    return [p for p in sorted((PY / "mha").rglob("*.py")) if p.name != "__main__.py"]


def _pycache(path):
    """'json/decoder.py' -> 'json/__pycache__/decoder.cpython-314.pyc': where _with_bytecode puts its .pyc."""
    folder, _, name = path.rpartition("/")
    return f"{folder + '/' if folder else ''}__pycache__/{name[:-3]}.cpython-{PYODIDE_VERSION.split('.')[0]}.pyc"


def _with_bytecode(files, file_prefix=""):
    """{path: bytes} plus a __pycache__/*.pyc for each .py, compiled by the pinned Pyodide under Node.

    The page's Python then imports without compiling: about 0.1 s less before the figures are
    live. Unchecked-hash pycs (scripts/compile_pyc.mjs says why); cached by _node_json, so a rebuild
    of unchanged sources runs no Node.
    file_prefix: put before each path in the code's file name (what a traceback shows).
    """
    sources = {path: data.decode("utf-8") for path, data in files.items() if path.endswith(".py")}
    encoded = _node_json("compile_pyc.mjs", sources, "compile the modules", file_prefix)
    compiled = {path: base64.b64decode(text) for path, text in encoded.items()}
    return {**files, **dict(sorted(compiled.items()))}


def _node_json(script, given, doing, *args):
    """What scripts/SCRIPT (run by Node, with `given` as JSON on stdin and args) prints, as JSON.

    Cached in .cache/ by a hash of the Pyodide version, the script, its arguments and `given`, so a
    rebuild with none of them changed runs no Node. doing: what the script does, for the error.
    """
    path = ROOT / "scripts" / script
    stdin = json.dumps(given, sort_keys=True)
    key = _sha256(json.dumps([PYODIDE_VERSION, path.read_text(), args, stdin]).encode())[:16]
    cached = CACHE / f"{path.stem}-{key}.json"
    if not cached.exists():
        done = subprocess.run(["node", str(path), *args], input=stdin, capture_output=True, text=True, cwd=ROOT)
        if done.returncode:
            sys.exit(f"scripts/{script} could not {doing}:\n{done.stderr[-2000:]}")
        CACHE.mkdir(exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")  # builds running side by side: rename is atomic
        partial.write_text(done.stdout)
        partial.replace(cached)
    return json.loads(cached.read_text())


def _bundle_editor(out):
    """cells/editor.mjs with the CodeMirror it imports (pinned in package-lock.json) as one minified module.

    esbuild (pinned too) is deterministic: the same sources give the same bytes. No source map.
    """
    source, target = SITE / EDITOR[0], out / EDITOR[1]
    target.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([str(NODE_MODULES / ".bin" / "esbuild"), str(source), "--bundle", "--format=esm",
                           "--minify", "--target=es2020", "--charset=utf8", "--legal-comments=none",
                           f"--banner:js={EDITOR_NOTICE}", "--log-level=warning", f"--outfile={target}"],
                          cwd=ROOT)
    if done.returncode:
        sys.exit(f"esbuild could not bundle {source.relative_to(ROOT)} (see above)")


def _copy_pyodide(out):
    """The runtime's files, micropip, and a lock whose micropip hash is the shipped wheel's."""
    target = out / "pyodide"
    target.mkdir()
    for name in PYODIDE_FILES:
        _copy_stripped(NODE_MODULES / "pyodide" / name, target / name)
    lock = json.loads((NODE_MODULES / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    if (entry["version"], entry["file_name"]) != (MICROPIP_VERSION, MICROPIP_WHEEL):
        sys.exit(f"pyodide-lock.json wants micropip {entry['version']} ({entry['file_name']}): update MICROPIP_*")
    entry["sha256"] = MICROPIP_SHA256  # the browser checks the wheel against this
    (target / "pyodide-lock.json").write_text(json.dumps(lock, separators=(",", ":")))
    # The page's interpreter loads no package (mha and the site's modules come unzipped by archives.mjs; micropip
    # only ever loads in the cells' worker, which reads the whole lock): its lock names none, 0.3 kB for 111 kB.
    (target / PAGE_LOCK).write_text(json.dumps({"info": lock["info"], "packages": {}}, separators=(",", ":")))
    shutil.copyfile(_micropip_wheel(), target / MICROPIP_WHEEL)


def _copy_pyscript(out):
    """All of @pyscript/core/dist (chunks load on demand) without source maps."""
    source = NODE_MODULES / "@pyscript" / "core" / "dist"
    target = out / "pyscript"
    target.mkdir()
    for path in sorted(source.iterdir()):
        if path.is_file() and path.suffix != ".map":
            _copy_stripped(path, target / path.name)


def _copy_stripped(source, target):
    """Copy a file, dropping a trailing sourceMappingURL comment (the maps are not shipped)."""
    data = source.read_bytes()
    if source.suffix in (".js", ".mjs"):
        data = SOURCE_MAP.sub(b"\n", data)
    target.write_bytes(data)


def _project():
    """pyproject.toml's [project] table: the wheel's name, version and summary."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _later_files(name):
    """{path in the wheel's layout: bytes} of LATER[name]'s files, as py/mha holds them."""
    return {f"{_project()['name']}/{p.relative_to(PY / 'mha').as_posix()}": p.read_bytes()
            for p in sorted((PY / "mha").glob(LATER[name]))}


def _build_wheel():
    """py/mha as a pure-Python wheel, by hand: METADATA, WHEEL, RECORD with sha256; (file name, bytes), deterministic.

    Its modules and its package data (WHEEL_SUFFIXES), less what LATER serves when a section nears (mha.text's
    models: _later_archive).
    """
    project = _project()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    later = {path for key in LATER for path in _later_files(key)}
    files = _with_bytecode({path: p.read_bytes() for p in sorted((PY / name).rglob("*"))
                            if p.suffix in WHEEL_SUFFIXES and "__pycache__" not in p.parts
                            and (path := f"{name}/{p.relative_to(PY / name).as_posix()}") not in later})
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        f"Summary: {project.get('description', '')}\n"
        f"Requires-Python: {project.get('requires-python', '>=3.10')}\n").encode()
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: mha build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n").encode()
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
              f"{len(data)}" for path, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join(record + [f"{dist_info}/RECORD,,"]) + "\n").encode()
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    return wheel_name, _zip(files)


def _later_archive(name):
    """LATER[name]'s files as a zip (file name, bytes), unpacked beside the wheel's files when asked for."""
    return f"{name}.zip", _zip(_later_files(name))


def _zip(files):
    """{path: bytes} as zip bytes, deterministic: fixed timestamps and modes, in the order given; deflated at
    zlib's level 9 (level 6, the default, sent 24 kB more of the three archives before ready)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, WHEEL_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)  # a ZipInfo takes no level from the ZipFile
    return buffer.getvalue()


def _content_addressed(out, folder, name, data):
    """Write data to folder/<sha256 prefix>/name and return that path: changed bytes get a new URL.

    So no cache (the browser's, a static host's) can hand out an old mha or old
    page modules after a rebuild, and an unchanged file stays cached across deploys.
    """
    target = out / folder / _sha256(data)[:16]
    target.mkdir(parents=True)
    (target / name).write_bytes(data)
    return f"{folder}/{target.name}/{name}"


def _write_config(out, archives, later=None):
    """The one PyScript config: the local interpreter (never the CDN default), and the archives every
    interpreter unpacks.

    "archives" is the site's own key (PyScript ignores it): archives.mjs unzips each one (mha's wheel,
    the site's modules) into the working directory before interpreter.mjs hands Pyodide to PyScript, so
    the page imports mha from its wheel without micropip on the way to ready. worker.mjs reads the same
    list to set up the workers' interpreters (cells, training), and unpacks "later" too (a reader's cell may
    load a text model). "later" ({name: path}): archives the page fetches when a section asks for one
    (interpreter.mjs's mhaLater: section 9's models when it comes near).
    """
    config = {
        "interpreter": "./interpreter.mjs",  # Pyodide, already started by index.html (relative to this file)
        "archives": [f"./{path}" for path in archives],
        "later": {name: f"./{path}" for name, path in (later or {}).items()},
    }
    (out / "pyscript.json").write_text(json.dumps(config, indent=2) + "\n")
    return config


def _preloads(out, config):
    """<link>s that fetch, while the page is parsed, what start-up will ask for by hashed names: the config,
    its archives (archives.mjs unzips them while Pyodide starts) and PyScript's main chunk."""
    core, _ = _pyscript_core(out)
    links = ['<link rel="preload" href="./pyscript.json" as="fetch" crossorigin>',
             *(f'<link rel="preload" href="{path}" as="fetch" crossorigin>' for path in config["archives"]),
             f'<link rel="modulepreload" href="./pyscript/{core}">']
    return "\n  ".join(links)


def page_source():
    """site/index.html with each <!--section:NAME--> replaced by site/sections/NAME.html (not yet rendered)."""
    def section(match):
        path = SITE / "sections" / f"{match.group(1)}.html"
        if not path.is_file():
            sys.exit(f"index.html includes a section with no file: {path}")
        return path.read_text()

    return SECTION_MARK.sub(section, (SITE / "index.html").read_text())


def _render_page(out, preloads):
    """The page with its sections, each <!--render:ID--> replaced by prerender()[ID] (the live code's own
    trees) and each <!--value:KEY--> by figures.prose()[KEY] (a number in the prose, computed by mha)."""
    for path in (str(SITE), str(PY)):
        if path not in sys.path:
            sys.path.insert(0, path)
    import importlib

    from page import dom

    rendered = {}
    for module in PRERENDER:
        trees = importlib.import_module(module).prerender()
        if trees.keys() & rendered.keys():
            sys.exit(f"{module}.prerender() fills marks another module fills: {sorted(trees.keys() & rendered.keys())}")
        rendered.update({key: "".join(dom.to_html(node) for node in children) for key, children in trees.items()})
    page = page_source()
    if page.count(PRELOAD_MARK) != 1:
        sys.exit(f"index.html needs exactly one {PRELOAD_MARK} in its <head>")
    page = page.replace(PRELOAD_MARK, preloads)
    marks = RENDER_MARK.findall(page)
    if sorted(marks) != sorted(rendered):
        sys.exit(f"index.html marks {sorted(marks)} do not match the prerender() of {PRERENDER}: {sorted(rendered)}")
    page = RENDER_MARK.sub(lambda m: rendered[m.group(1)], page)
    answers = importlib.import_module("figures.questions").answers()  # fetched on Check: no spoiler in the page
    (out / "answers.json").write_text(json.dumps(answers, separators=(",", ":")))
    for name, text in importlib.import_module("figures.training").files().items():
        (out / name).write_text(text)  # training.json: the build-time checkpoints the page's Python probes
    values = importlib.import_module("figures").prose()
    missing = set(VALUE_MARK.findall(page)) - set(values)
    if missing:
        sys.exit(f"the page's prose asks for values figures.prose() does not give: {sorted(missing)}")
    page = VALUE_MARK.sub(lambda m: dom.to_html(values[m.group(1)]), page)
    if page.count(CHARSET) != 1:
        sys.exit(f"index.html needs exactly one {CHARSET}: the CSP goes right after it")
    csp = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    (out / "index.html").write_text(page.replace(CHARSET, f"{CHARSET}\n  {csp}"))


def build(out_dir=DIST):
    """Write the complete static site into out_dir (replaced); returns its Path."""
    out = Path(out_dir).resolve()
    if out == ROOT or out in ROOT.parents:
        sys.exit(f"refusing to replace {out}: it holds the project")
    _npm_ci()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    _copy_site(out)
    _write_styles(out)
    _bundle_editor(out)
    _copy_pyodide(out)
    _copy_pyscript(out)
    _page_stdlib(out)
    wheel_name, wheel = _build_wheel()
    later = {name: _content_addressed(out, "later", *_later_archive(name)) for name in LATER}
    config = _write_config(out, [_content_addressed(out, "wheels", wheel_name, wheel), _site_archive(out)], later)
    _render_page(out, _preloads(out, config))
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve files as they are
    files = [p for p in out.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files) / 1e6
    print(f"built {out}: {len(files)} files, {size:.1f} MB "
          f"(pyodide {PYODIDE_VERSION}, @pyscript/core {PYSCRIPT_VERSION}, {wheel_name})")
    return out


def make_server(directory, port=0, prefix=SUB_PATH, root_too=False, quiet=True, sent=None):
    """A threaded loopback HTTP server for directory under prefix (and / if root_too); no special headers.

    sent: a list, if given, that gets (file, status) for each answer: the file relative to directory
    ('index.html' for the folder), the status as a number. It sees the workers' requests too.
    """

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MEDIA_TYPES}

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(directory), **kwargs)

        def _route(self):
            if self.path == prefix.rstrip("/"):
                self.send_response(301)
                self.send_header("Location", prefix)
                self.end_headers()
                return False
            if self.path.startswith(prefix):
                self.path = "/" + self.path[len(prefix):]
                return True
            if root_too:
                return True
            self.send_error(404, f"this server serves the site under {prefix}")
            return False

        def do_GET(self):
            if self._route():
                super().do_GET()

        def do_HEAD(self):
            if self._route():
                super().do_HEAD()

        def send_response(self, code, message=None):
            if sent is not None:
                file = self.path.split("?")[0].lstrip("/")
                sent.append((file if file and not file.endswith("/") else file + "index.html", int(code)))
            super().send_response(code, message)

        def log_message(self, format, *args):
            if not quiet:
                super().log_message(format, *args)

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser closing mid-download is normal
                super().handle_error(request, client_address)

    return Server(("127.0.0.1", port), Handler)


@contextlib.contextmanager
def serving(directory, prefix=SUB_PATH, sent=None):
    """make_server(directory) on a free loopback port, answering from a thread while the block runs.

    Yields the site's URL (http://127.0.0.1:PORT/lesson/); the server is shut and closed after the block.
    For the tests and the benchmarks; sent: as make_server's.
    """
    server = make_server(directory, port=0, prefix=prefix, sent=sent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()


def _serve(port, out_dir):
    out = build(out_dir)
    try:
        server = make_server(out, port=port, root_too=True, quiet=False)
    except OSError as error:
        sys.exit(f"cannot listen on 127.0.0.1:{port} ({error}): try python build.py serve --port 8001")
    base = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"serving {out} at {base}{SUB_PATH} (also {base}/); Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Build the lesson site into dist/, or build and serve it.")
    parser.add_argument("command", nargs="?", choices=["build", "serve"], default="build")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default 8000; 0 picks a free one)")
    parser.add_argument("--out", type=Path, default=DIST, help="where to write the site (default dist/)")
    args = parser.parse_args()
    if args.command == "serve":
        _serve(args.port, args.out)
    else:
        build(args.out)
