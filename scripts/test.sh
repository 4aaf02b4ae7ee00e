#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test (unit and browser).
#   bash scripts/test.sh            # all tests
#   bash scripts/test.sh -k site    # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser tests (playwright's own browser download is not used).
if [ ! -x /usr/bin/chromium ]; then
  echo "test.sh: installing Debian's chromium (needs root and apt)" >&2
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
# Debian's firefox-esr runs the Firefox smoke suite (tests/browser/), driven by puppeteer-core.
if [ ! -x /usr/bin/firefox-esr ]; then
  echo "test.sh: installing Debian's firefox-esr (needs root and apt)" >&2
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y firefox-esr
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
# No install of mha itself: pytest finds py/ and site/ through pyproject.toml's pythonpath.

# The pinned Pyodide, PyScript and the workflow linter (package-lock.json checks each tarball);
# reinstalled only when package-lock.json changed, with the same stamp build.py reads.
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat node_modules/.mha-package-lock.sha256 2>/dev/null || true)" != "$lock_hash" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --prefer-offline
  printf '%s' "$lock_hash" > node_modules/.mha-package-lock.sha256
fi

exec .venv/bin/python -m pytest "$@"
