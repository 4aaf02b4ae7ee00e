"""Which Chromium and which Firefox the browser tests drive: one rule, for scripts/test.sh and the tests.

In order, first match wins:
1. MHA_CHROMIUM / MHA_FIREFOX, a path to an executable (a path that is not one is a failure).
2. Debian's own: /usr/bin/chromium (on Debian only: GitHub's Ubuntu runners put another Chromium
   there), /usr/bin/firefox-esr.
3. On Debian with apt, nothing else: scripts/test.sh installs both with apt-get, so a missing one is
   a failure, never a skip (this machine and CI are Debian: the Firefox tests always run there).
4. Elsewhere (Ubuntu, macOS): Playwright's own Chromium (launched without executable_path), and the
   Firefox build puppeteer-core pins, downloaded by @puppeteer/browsers into DOWNLOADS.
5. No Firefox there: the Firefox tests are skipped, with a reason that names it.

    python scripts/browsers.py --fetch   # what test.sh must fetch: apt:chromium, playwright:chromium, ...
    python scripts/browsers.py           # the choice here, one line per browser
"""

import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DOWNLOADS = ROOT / ".cache" / "browsers"  # @puppeteer/browsers install --path (its cache layout)
DEBIAN = {"chromium": "/usr/bin/chromium", "firefox": "/usr/bin/firefox-esr"}  # apt package = file name
APT = "/usr/bin/apt-get"
ENV = {"chromium": "MHA_CHROMIUM", "firefox": "MHA_FIREFOX"}


class Choice(NamedTuple):
    path: str | None  # the executable; None = Playwright's own Chromium (launch without executable_path)
    source: str  # where it comes from, in words
    fetch: str = ""  # what test.sh does to get it: "apt:PACKAGE", "playwright:chromium", "puppeteer:firefox"
    missing: str = ""  # why there is none yet, naming the browser; "" when path is ready to launch
    skip: bool = False  # whether the tests that need it may skip (only where no apt of Debian's can install it)


def choose(browser, env, os_id, executable, downloads=()):
    """The Choice for browser ("chromium" or "firefox"), from explicit inputs only.

    env: the environment (a mapping); os_id: /etc/os-release's ID ("debian", "ubuntu"; "macos" on a Mac);
    executable(path) -> bool: whether a file is there and may be run; downloads: Firefox executables
    under DOWNLOADS, the one to prefer first.
    """
    variable, debian = ENV[browser], DEBIAN[browser]
    package = Path(debian).name
    if env.get(variable):
        path = env[variable]
        if executable(path):
            return Choice(path, variable)
        return Choice(path, variable, missing=f"{variable}={path} is not an executable file")
    if executable(debian) and (os_id == "debian" or browser == "firefox"):  # Ubuntu's runners link a chromium
        return Choice(debian, f"Debian's {package}")                       # of their own there: not Debian's
    if os_id == "debian" and executable(APT):
        return Choice(debian, f"Debian's {package}", fetch=f"apt:{package}",
                      missing=f"{debian} is missing (apt-get install {package}; scripts/test.sh does it)")
    if browser == "chromium":
        return Choice(None, "Playwright's own Chromium", fetch="playwright:chromium")
    if downloads:
        return Choice(downloads[0], "puppeteer-core's Firefox, downloaded")
    return Choice(None, "none", fetch="puppeteer:firefox", skip=True,
                  missing=f"no Firefox here ({os_id or 'unknown system'}): neither {variable} nor {debian} "
                          f"nor a download in {DOWNLOADS} (scripts/test.sh downloads one)")


def here(browser):
    """The Choice on this machine: choose() fed with the real environment, files and OS."""
    return choose(browser, os.environ, os_id(), lambda path: os.access(path, os.X_OK) and Path(path).is_file(),
                  downloaded_firefoxes())


def os_id(release=Path("/etc/os-release"), platform=sys.platform):
    """os-release's ID (e.g. "debian", "ubuntu": not ID_LIKE), "macos" on a Mac, "" when neither says."""
    if release.is_file():
        for line in release.read_text().splitlines():
            if line.startswith("ID="):
                return line[3:].strip().strip('"')
    return "macos" if platform == "darwin" else ""


def pinned_firefox(revisions=ROOT / "node_modules" / "puppeteer-core" / "lib" / "cjs" / "puppeteer" / "revisions.js"):
    """The Firefox build puppeteer-core pins ('stable_150.0.2'), read from its revisions.js; "" if not installed."""
    found = re.search(r"firefox:\s*'([^']+)'", revisions.read_text()) if revisions.is_file() else None
    return found.group(1) if found else ""


def downloaded_firefoxes(build=None):
    """Firefox executables of the pinned build (pinned_firefox()) that @puppeteer/browsers put in DOWNLOADS
    (Linux and Mac layouts, folders '<platform>-<build>'), newest first: after a puppeteer-core bump, an
    older download is not taken, so test.sh fetches the new one."""
    build = pinned_firefox() if build is None else build
    if not build:
        return []
    found = [*DOWNLOADS.glob(f"firefox/*-{build}/firefox/firefox"),
             *DOWNLOADS.glob(f"firefox/*-{build}/Firefox.app/Contents/MacOS/firefox")]
    return [str(path) for path in sorted(found, key=lambda path: path.stat().st_mtime, reverse=True)]


if __name__ == "__main__":
    choices = {browser: here(browser) for browser in ENV}
    if sys.argv[1:] == ["--fetch"]:
        print(" ".join(choice.fetch for choice in choices.values() if choice.fetch))
    else:
        for browser, choice in choices.items():
            print(f"{browser}: {choice.path or '(Playwright manages it)'} ({choice.source})"
                  + (f"; {choice.missing}" if choice.missing else ""))
