#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test (unit and browser).
#   bash scripts/test.sh            # all tests
#   bash scripts/test.sh -k site    # extra arguments go to pytest (-n 0: no second worker)
# MHA_CHROMIUM=/path, MHA_FIREFOX=/path: drive that browser instead (nothing is installed for it).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
# No install of mha itself: pytest finds py/ and site/ through pyproject.toml's pythonpath.

# The pinned Pyodide, PyScript, puppeteer-core and the workflow linter (package-lock.json checks each
# tarball); reinstalled only when package-lock.json changed, with the same stamp build.py reads.
lock_hash="$( (sha256sum package-lock.json 2>/dev/null || shasum -a 256 package-lock.json) | cut -d' ' -f1)"  # macOS: shasum
if [ "$(cat node_modules/.mha-package-lock.sha256 2>/dev/null || true)" != "$lock_hash" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --prefer-offline
  printf '%s' "$lock_hash" > node_modules/.mha-package-lock.sha256
fi

# The browsers: scripts/browsers.py decides which, by the rule the tests follow too, and says what
# is missing. On Debian (this project's machines and CI): Debian's chromium (Playwright drives it)
# and firefox-esr (puppeteer-core drives it over WebDriver BiDi), installed with apt when missing.
# Elsewhere (Ubuntu, GitHub's runners; macOS): Playwright's own Chromium, and the Firefox build
# puppeteer-core pins, downloaded by @puppeteer/browsers into .cache/browsers/. If that download
# fails, the Firefox tests are skipped and named in pytest's summary; on Debian they never skip.
fetches="$(.venv/bin/python scripts/browsers.py --fetch)"  # its own line, so set -e sees it fail
for fetch in $fetches; do
  case "$fetch" in
    apt:*)
      echo "test.sh: installing Debian's ${fetch#apt:} (needs root and apt)" >&2
      apt-get update
      DEBIAN_FRONTEND=noninteractive apt-get install -y "${fetch#apt:}"
      ;;
    playwright:chromium)
      echo "test.sh: installing Playwright's own Chromium (and, on Linux, its system libraries)" >&2
      .venv/bin/python -m playwright install --with-deps chromium
      ;;
    puppeteer:firefox)
      build_id="$(node -p "require('puppeteer-core/internal/revisions.js').PUPPETEER_REVISIONS.firefox")"
      echo "test.sh: downloading Firefox $build_id (puppeteer-core's pin) into .cache/browsers/" >&2
      npx --no-install @puppeteer/browsers install "firefox@$build_id" --path .cache/browsers \
        || echo "test.sh: no Firefox could be downloaded: the Firefox tests will be skipped" >&2
      ;;
    *)
      echo "test.sh: scripts/browsers.py asked for an unknown fetch: $fetch" >&2
      exit 1
      ;;
  esac
done
.venv/bin/python scripts/browsers.py >&2

# Two workers, one a core (pytest-xdist); a file's tests stay on one worker, since a module's tests share
# one loaded page. The build is shared, and the files go in tests/conftest.py's order (no reorder by size):
# those that need no build first, beside it. Extra arguments come after, so -n 0 runs everything in this process.
exec .venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"
