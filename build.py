"""Build the lesson into dist/: the page, a self-hosted Pyodide + PyScript, and the mha wheel.

    python build.py            # writes dist/ (any static host, any sub-path, no CDN)
    python build.py serve      # builds, then serves it on http://127.0.0.1:8000/lesson/

Standard library only. Downloads are pinned and hash-checked: the npm packages
by package-lock.json (`npm ci`), the micropip wheel by MICROPIP_SHA256. They
stay in node_modules/ and .cache/, so a rebuild is offline and fast.
"""

import argparse
import base64
import hashlib
import http.server
import json
import re
import shutil
import subprocess
import sys
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
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
MICROPIP_VERSION = "0.11.1"  # the version pyodide-lock.json names
MICROPIP_WHEEL = f"micropip-{MICROPIP_VERSION}-py3-none-any.whl"
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"  # PyPI's wheel

ENTRY = "main.py"  # the page's <script type="py">; every other site/*.py is shipped as an importable module
PRERENDER = ("figure", "cell_view")  # modules whose prerender() fill index.html's <!--render:ID--> marks
SKIP = ("__pycache__", ".pyc")
RENDER_MARK = re.compile(r"<!--render:([a-z0-9-]+)-->")
SOURCE_MAP = re.compile(rb"\n//# sourceMappingURL=\S+\s*$")
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
    "worker-src 'self'",
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
    """Everything in site/ but index.html (rendered later) and Python caches."""
    for path in sorted(SITE.rglob("*")):
        relative = path.relative_to(SITE)
        if path.is_dir() or path.name == "index.html" or any(s in str(relative) for s in SKIP):
            continue
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out / relative)


def _site_modules():
    """site/*.py other than the entry script: written into the browser's working directory by PyScript."""
    return sorted(p.name for p in SITE.glob("*.py") if p.name != ENTRY)


def _copy_pyodide(out):
    """The five runtime files, micropip, and a lock whose micropip hash is the shipped wheel's."""
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


def _build_wheel(out):
    """py/mha as a pure-Python wheel, by hand: METADATA, WHEEL, RECORD with sha256; deterministic."""
    project = _project()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files = {f"{name}/{p.relative_to(PY / name).as_posix()}": p.read_bytes()
             for p in sorted((PY / name).rglob("*.py")) if "__pycache__" not in p.parts}
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
    with zipfile.ZipFile(out / wheel_name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, WHEEL_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name


def _content_addressed(out, wheel_name):
    """Move the wheel to wheels/<sha256 prefix>/ and return its path: a changed wheel gets a new URL.

    PyScript keeps what micropip installed (a lock, in IndexedDB) keyed by the list of
    package URLs, so a repeat visit skips micropip; a new URL per wheel means that cache
    can never hand out an old mha after a rebuild.
    """
    data = (out / wheel_name).read_bytes()
    folder = out / "wheels" / _sha256(data)[:16]
    folder.mkdir(parents=True)
    (out / wheel_name).rename(folder / wheel_name)
    return f"wheels/{folder.name}/{wheel_name}"


def _write_config(out, wheel_path):
    """The one PyScript config: the local interpreter (never the CDN default), mha, the site modules."""
    config = {
        "interpreter": "./pyodide/pyodide.mjs",  # relative to this file's URL
        "packages": [f"./{wheel_path}"],  # content-addressed: safe to let PyScript cache the install
        "files": {f"./{name}": f"./{name}" for name in _site_modules()},
    }
    (out / "pyscript.json").write_text(json.dumps(config, indent=2) + "\n")


def _render_page(out):
    """index.html with each <!--render:ID--> replaced by prerender()[ID]: the live code's own trees."""
    for path in (str(SITE), str(PY)):
        if path not in sys.path:
            sys.path.insert(0, path)
    import importlib

    import dom

    rendered = {}
    for module in PRERENDER:
        trees = importlib.import_module(module).prerender()
        if trees.keys() & rendered.keys():
            sys.exit(f"{module}.prerender() fills marks another module fills: {sorted(trees.keys() & rendered.keys())}")
        rendered.update({key: "".join(dom.to_html(node) for node in children) for key, children in trees.items()})
    page = (SITE / "index.html").read_text()
    marks = RENDER_MARK.findall(page)
    if sorted(marks) != sorted(rendered):
        sys.exit(f"index.html marks {sorted(marks)} do not match the prerender() of {PRERENDER}: {sorted(rendered)}")
    page = RENDER_MARK.sub(lambda m: rendered[m.group(1)], page)
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
    _copy_pyodide(out)
    _copy_pyscript(out)
    wheel_name = _build_wheel(out)
    _write_config(out, _content_addressed(out, wheel_name))
    _render_page(out)
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve files as they are
    files = [p for p in out.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files) / 1e6
    print(f"built {out}: {len(files)} files, {size:.1f} MB "
          f"(pyodide {PYODIDE_VERSION}, @pyscript/core {PYSCRIPT_VERSION}, {wheel_name})")
    return out


def make_server(directory, port=0, prefix=SUB_PATH, root_too=False, quiet=True):
    """A threaded loopback HTTP server for directory under prefix (and / if root_too); no special headers."""

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

        def log_message(self, format, *args):
            if not quiet:
                super().log_message(format, *args)

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser closing mid-download is normal
                super().handle_error(request, client_address)

    return Server(("127.0.0.1", port), Handler)


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
