"""build.py's dist/: self-contained, relative, pinned and hash-checked; served under a sub-path. No browser."""

import base64
import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

import build
import figures
from interpreters import run_pyodide
from page import dom

# --- test data ---------------------------------------------------------------

RUNTIME = ["pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.wasm",
           f"pyodide/{build.PAGE_STDLIB}", f"pyodide/{build.STDLIB_REST}", "pyodide/pyodide-lock.json",
           f"pyodide/{build.MICROPIP_WHEEL}", "pyscript/core.js", "pyscript/core.css"]
PAGE = ["index.html", "boot.js", "interpreter.mjs", "archives.mjs", "style.css", "cells.css", "app/main.py",
        "worker.mjs", "pyscript.json", ".nojekyll"]
NOT_SHIPPED = ["*.map", "*.d.ts", "pyodide/pyodide.js", "pyodide/console*.html", "**/__pycache__",
               "pyodide/python_stdlib.zip"]  # in two parts instead: PAGE_STDLIB and STDLIB_REST
URL_ATTRIBUTE = re.compile(r'\b(?:src|href|config)="([^"]*)"')
# The cells' editor (CodeMirror 6, minified by esbuild) is about 357 kB, 120 kB gzipped: the page may
# transfer at most 1.1 x bare Pyodide (13.5 MB), and was at about 13.6 MB before the editor.
EDITOR_MAX_BYTES = 400_000
IMPORT_STATEMENT = re.compile(rb'(?:^|[;}\s])import\s*(?:["{*]|[\w$]+\s+from)|\bfrom\s*"@?[\w/.-]+"')


def _wheel_name():
    project = build._project()
    return f"{project['name']}-{project['version']}-py3-none-any.whl"


def _wheel(built_site):
    """The one mha wheel, under wheels/<first 16 hex digits of its sha256>/."""
    (path,) = built_site.glob(f"wheels/*/{_wheel_name()}")
    return path


def _modules(built_site):
    """The one archive of the site's modules, under modules/<first 16 hex digits of its sha256>/."""
    (path,) = built_site.glob(f"modules/*/{build.SITE_ARCHIVE}")
    return path


# --- tests ---------------------------------------------------------------------

@pytest.mark.parametrize("name", RUNTIME + PAGE)
def test_dist_has_every_file_the_page_needs(built_site, name):
    assert (built_site / name).is_file(), name


@pytest.mark.parametrize("pattern", NOT_SHIPPED)
def test_dist_leaves_out_what_the_runtime_never_loads(built_site, pattern):
    assert not list(built_site.glob(pattern)), pattern


def test_no_source_map_comment_points_at_a_missing_file(built_site):
    for path in [*built_site.glob("pyscript/*.js"), *built_site.glob("pyodide/*.mjs")]:
        assert b"sourceMappingURL=" not in path.read_bytes()[-300:], path.name


def test_page_urls_are_relative(built_site):
    """No src/href/config is absolute or off-site: the site works under any sub-path, offline. The one exception
    is the sources list's links, which a reader follows (navigation, never fetched by the page)."""
    page = (built_site / "index.html").read_text()
    sources = page[page.index('<section id="references"'):]
    sources = sources[:sources.index("</section>")]
    links = re.findall(r'<a href="([^"]+)"', sources)
    assert len(links) == 9 and all(u.startswith("https://") for u in links), links
    urls = URL_ATTRIBUTE.findall(page.replace(sources, ""))
    assert any(u.startswith("./") for u in urls), "no relative URLs found: the pattern is broken"
    inline = [u for u in urls if u.startswith("data:")]  # the empty favicon: no request at all
    assert not [u for u in urls if (u.startswith("/") or ":" in u) and u not in inline], urls
    assert inline == ["data:,"]


def test_every_py_tag_uses_the_local_config(built_site):
    page = (built_site / "index.html").read_text()
    tags = re.findall(r"<(?:script type=\"py\"|py-script|py-editor|script type=\"py-editor\")[^>]*>", page)
    assert tags
    assert all('config="./pyscript.json"' in tag for tag in tags), tags


def test_pyscript_config_names_only_local_files(built_site):
    config = json.loads((built_site / "pyscript.json").read_text())
    assert config["interpreter"] == "./interpreter.mjs"
    assert "packages" not in config  # no micropip on the way to ready
    wheel, modules = _wheel(built_site), _modules(built_site)
    assert config["archives"] == [f"./{path.relative_to(built_site).as_posix()}" for path in (wheel, modules)]
    for path in (wheel, modules):  # new bytes, new URL: no cache can serve an old one after a rebuild
        assert path.parent.name == hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    assert "://" not in json.dumps(config)


def test_the_site_modules_archive_holds_every_module_and_nothing_else(built_site):
    """The packages page, figures and cells, less the entry script (fetched as the page's <script>) and the
    cells' reader sources (pre-rendered into index.html); no loose .py but the entry in dist/. Beside them,
    the bytecode of PyScript's own package (its sources PyScript writes itself), and nothing else."""
    with zipfile.ZipFile(_modules(built_site)) as archive:
        names = set(archive.namelist())
    site = build.SITE
    expected = {p.relative_to(site).as_posix() for p in site.rglob("*.py") if "__pycache__" not in p.parts}
    expected -= {build.ENTRY} | {n for n in expected if n.startswith(build.CELL_SOURCES + "/")}
    expected |= {_pyc(n) for n in expected}
    pyscript = {_pyc(path) for path in build._pyscript_sources(built_site)}
    assert names == expected | pyscript and {"page/state.py", "figures/__init__.py", "cells/worker.py"} <= names
    assert {"pyscript/__pycache__/__init__.cpython-314.pyc", "pyscript/__pycache__/display.cpython-314.pyc"} <= pyscript
    assert [p.relative_to(built_site).as_posix() for p in built_site.rglob("*.py")] == [build.ENTRY]


def _pyc(path):
    """'page/state.py' -> 'page/__pycache__/state.cpython-314.pyc': where Pyodide's Python looks for it."""
    folder, _, name = path.rpartition("/")
    tag = f"cpython-{build.PYODIDE_VERSION.split('.')[0]}"  # Pyodide 314.x is Python 3.14
    return f"{folder + '/' if folder else ''}__pycache__/{name[:-3]}.{tag}.pyc"


def test_mha_wheel_ships_bytecode_for_every_module(built_site):
    with zipfile.ZipFile(_wheel(built_site)) as wheel:
        names = set(wheel.namelist())
    sources = {n for n in names if n.endswith(".py")}
    assert "mha/heads.py" in sources
    assert {n for n in names if n.endswith(".pyc")} == {_pyc(n) for n in sources}


def test_the_bytecode_is_what_pyodide_imports_without_compiling_the_source(tmp_path):
    """build._with_bytecode's .pyc is what the pinned Pyodide imports: with the source on disk replaced by
    one that would fail, the import still gives the compiled value. Unchecked-hash pycs (PEP 552, flags
    0b01), so the unpacked archive's file times do not matter."""
    files = build._with_bytecode({"probe_pkg/__init__.py": b"", "probe_pkg/mod.py": b"VALUE = 6 * 7\n"})
    pycs = {path: data for path, data in files.items() if path.endswith(".pyc")}
    assert set(pycs) == {_pyc("probe_pkg/__init__.py"), _pyc("probe_pkg/mod.py")}
    assert all(int.from_bytes(data[4:8], "little") == 0b01 for data in pycs.values())
    encoded = {path: base64.b64encode(data).decode() for path, data in files.items()}
    script = tmp_path / "probe.py"
    script.write_text(f"""
import base64, json, os, sys
for path, data in json.loads({json.dumps(json.dumps(encoded))}).items():
    full = os.path.join("/probe_root", path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as file:
        file.write(base64.b64decode(data))
with open("/probe_root/probe_pkg/mod.py", "w") as file:
    file.write("raise SystemExit('the source was compiled, not the .pyc')\\n")
sys.path.insert(0, "/probe_root")
import probe_pkg.mod
print(json.dumps({{"value": probe_pkg.mod.VALUE, "cached": probe_pkg.mod.__cached__}}))
""")
    assert run_pyodide(script) == {"value": 42, "cached": "/probe_root/" + _pyc("probe_pkg/mod.py")}


def test_the_cells_editor_is_one_minified_bundle(built_site, tmp_path):
    """cells/editor.js: CodeMirror and editor.mjs in one module (no import left), minified, no source map,
    under its byte budget, the same bytes on every build; the unbundled editor.mjs is not shipped."""
    source, bundle = build.EDITOR
    data = (built_site / bundle).read_bytes()
    assert not (built_site / source).exists()
    assert len(data) <= EDITOR_MAX_BYTES, len(data)
    assert len(data) / (data.count(b"\n") + 1) > 2000  # minified (its few newlines are inside template strings)
    assert b"sourceMappingURL" not in data and not list(built_site.rglob("cells/*.map"))
    assert not IMPORT_STATEMENT.search(data), IMPORT_STATEMENT.search(data)
    for needed in (b"cm-editor", b"tok-keyword", b"adoptedStyleSheets", b"data-cell-code"):
        assert needed in data, needed
    build._bundle_editor(tmp_path)
    assert (tmp_path / bundle).read_bytes() == data


def test_the_page_starts_python_first_and_loads_the_rest_without_waiting(built_site):
    """<head>'s scripts: interpreter.mjs first (Pyodide starts while the page is parsed), boot.js deferred
    (it needs the parsed page), the page's Python script before PyScript's core (so an async core finds
    it and its config), then the core as an async module. The editor is not among them: boot.js imports
    it when a cell comes near."""
    page = (built_site / "index.html").read_text()
    head = page[:page.index("</head>")]
    scripts = re.findall(r"<script ([^>]*)></script>", head)
    assert scripts == ['type="module" async src="./interpreter.mjs"', 'type="module" src="./boot.js"',
                       'type="py" src="./app/main.py" config="./pyscript.json"',
                       'type="module" async src="./pyscript/core.js"']
    assert "<script" not in page[page.index("</head>"):]
    assert f'import("./{build.EDITOR[1]}")' in (built_site / "boot.js").read_text()


def test_the_pages_lock_names_no_package_and_the_pyodide_of_the_whole_lock(built_site):
    """The page's interpreter loads no package, so its lock (page-lock.json, which index.html preloads) is the
    whole lock's info with no packages; the cells' worker, which may load micropip, reads the whole lock."""
    whole = json.loads((built_site / "pyodide" / "pyodide-lock.json").read_text())
    page_lock = json.loads((built_site / "pyodide" / build.PAGE_LOCK).read_text())
    assert page_lock == {"info": whole["info"], "packages": {}} and len(whole["packages"]) > 100
    page = (built_site / "index.html").read_text()
    assert f'href="./pyodide/{build.PAGE_LOCK}"' in page and "pyodide-lock.json" not in page
    assert f'"./pyodide/{build.PAGE_LOCK}"' in (built_site / "interpreter.mjs").read_text()


def test_lock_carries_the_shipped_micropip_hash(built_site):
    lock = json.loads((built_site / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    wheel = (built_site / "pyodide" / entry["file_name"]).read_bytes()
    assert entry["sha256"] == hashlib.sha256(wheel).hexdigest() == build.MICROPIP_SHA256


def test_mha_wheel_record_matches_its_files(built_site):
    with zipfile.ZipFile(_wheel(built_site)) as wheel:
        names = wheel.namelist()
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(wheel.read(record_name).decode())))
        assert sorted(r[0] for r in rows) == sorted(names)
        for path, digest, size in rows:
            if path == record_name:
                continue
            data = wheel.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, size) == (f"sha256={expected}", str(len(data))), path
        assert "Tag: py3-none-any" in wheel.read(record_name.replace("RECORD", "WHEEL")).decode()


def test_the_text_models_come_later_byte_for_byte_and_the_wheel_holds_everything_else(built_site):
    """mha.text's models are not on the way to ready: the wheel leaves them out and pyscript.json's "later" names one
    content-addressed archive holding exactly py/mha/text/model-*.json, at the wheel's paths, with their bytes.
    Every other file of py/mha is in the wheel."""
    config = json.loads((built_site / "pyscript.json").read_text())
    assert list(config["later"]) == ["text-models"]
    archive = built_site / config["later"]["text-models"]
    assert archive.parent.name == hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    models = sorted((build.PY / "mha" / "text").glob("model-*.json"))
    assert [m.name for m in models] == ["model-0.json", "model-1.json", "model-2.json"]
    with zipfile.ZipFile(archive) as later:
        assert later.namelist() == [f"mha/text/{m.name}" for m in models]
        assert all(later.read(f"mha/text/{m.name}") == m.read_bytes() for m in models)
    with zipfile.ZipFile(_wheel(built_site)) as wheel:
        shipped = set(wheel.namelist())
    sources = {f"mha/{p.relative_to(build.PY / 'mha').as_posix()}" for p in (build.PY / "mha").rglob("*")
               if p.suffix in (".py", ".json") and "__pycache__" not in p.parts}
    assert sources - shipped == {f"mha/text/{m.name}" for m in models}


def test_mha_wheel_imports_and_is_deterministic(built_site, tmp_path):
    wheel = _wheel(built_site)
    assert build._build_wheel() == (wheel.name, wheel.read_bytes())
    probe = "import mha, sys; print(mha.__file__.startswith(sys.argv[1]), mha.LESSON_TOKENS)"
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, sys.argv[1]); {probe}",
                          str(wheel)], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True ((1.0, 0.0, 0.0, 1.0), (0.9, 0.1, 1.0, 0.0))"


def test_page_is_prerendered_by_the_live_code(built_site):
    """index.html holds exactly figures.prerender()'s trees, with the worked numbers in them."""
    page = (built_site / "index.html").read_text()
    assert "<!--render:" not in page
    for key, children in figures.prerender().items():
        assert f'id="{key}"' in page
        assert "".join(dom.to_html(node) for node in children) in page
    for number in ["0.52", "0.48", "0.67", "0.33", "0.63", "0.39", "0.61"]:  # 2 decimals until the reader asks
        assert f">{number}</td>" in page, number


def test_build_refuses_to_replace_the_project(tmp_path):
    with pytest.raises(SystemExit):
        build.build(build.ROOT)


def test_server_serves_under_the_sub_path_with_plain_headers(built_site, site_url):
    with urllib.request.urlopen(site_url) as response:
        assert response.status == 200
        assert b'data-python="loading"' in response.read()
        assert not [h for h in response.headers if h.lower().startswith("cross-origin")]
    for name, media_type in [("pyodide/pyodide.asm.wasm", "application/wasm"),
                             ("pyodide/pyodide.mjs", "text/javascript")]:
        with urllib.request.urlopen(site_url + name) as response:
            assert response.headers["Content-Type"] == media_type
    root = site_url.replace(build.SUB_PATH, "/")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(root)  # only /lesson/: an absolute URL in the page would 404 in the tests
    assert error.value.code == 404


@pytest.mark.usefixtures("built_site")  # after the session's build: this one reads its cached training run
def test_serve_command_builds_and_prints_its_url(tmp_path):
    """`python build.py serve` (the README's first command) answers at the URL it prints."""
    process = subprocess.Popen([sys.executable, "build.py", "serve", "--port", "0", "--out", str(tmp_path / "d")],
                               cwd=build.ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        lines = [process.stdout.readline(), process.stdout.readline()]
        url = re.search(r"serving \S+ at (http://127\.0\.0\.1:\d+/lesson/)", "".join(lines)).group(1)
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b"Multi-head attention" in response.read()
        with urllib.request.urlopen(url.replace("/lesson/", "/"), timeout=10) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert Path(tmp_path / "d" / "index.html").is_file()


def test_every_prose_number_fills_a_mark_and_every_mark_has_one():
    """figures.PROSE and the <!--value:KEY--> marks of the page's HTML match both ways: a key no mark uses is dead
    code that still computes (four kv keys, cost-model, text-vocab and text-steps were, 2026-12-06)."""
    import figures

    site = Path(build.__file__).resolve().parent / "site"
    html = "".join(p.read_text() for p in [site / "index.html", *sorted((site / "sections").glob("*.html"))])
    marks = set(build.VALUE_MARK.findall(html))
    assert marks == set(figures.PROSE), (sorted(set(figures.PROSE) - marks), sorted(marks - set(figures.PROSE)))
