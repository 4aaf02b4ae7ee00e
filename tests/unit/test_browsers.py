"""scripts/browsers.py picks the Chromium and the Firefox from its inputs alone: env, OS id, which files exist.

Only the Debian path runs for real on this machine and its CI (tests/browser/). Ubuntu (GitHub's
runners) and macOS are proved here, with fake paths: their downloads cannot be reached from here.
"""

import os

import pytest

from scripts import browsers
from scripts.browsers import Choice, choose

APT = "/usr/bin/apt-get"
DEBIAN_CHROMIUM, DEBIAN_FIREFOX = "/usr/bin/chromium", "/usr/bin/firefox-esr"
DOWNLOAD = "/repo/.cache/browsers/firefox/linux-stable_150.0.2/firefox/firefox"
MAC_DOWNLOAD = "/repo/.cache/browsers/firefox/mac_arm-stable_150.0.2/Firefox.app/Contents/MacOS/firefox"


def pick(browser, os_id, files=(), env=None, downloads=()):
    """choose() on a fake machine where exactly `files` are executable."""
    return choose(browser, env or {}, os_id, set(files).__contains__, list(downloads))


# --- Debian, with apt: this machine and CI ----------------------------------------------------------

def test_debian_drives_its_own_chromium_and_firefox_esr():
    files = [APT, DEBIAN_CHROMIUM, DEBIAN_FIREFOX]
    assert pick("chromium", "debian", files) == Choice(DEBIAN_CHROMIUM, "Debian's chromium")
    assert pick("firefox", "debian", files) == Choice(DEBIAN_FIREFOX, "Debian's firefox-esr")


@pytest.mark.parametrize("browser, path, package", [("chromium", DEBIAN_CHROMIUM, "chromium"),
                                                    ("firefox", DEBIAN_FIREFOX, "firefox-esr")],
                         ids=["chromium", "firefox"])
def test_debian_missing_browser_is_fetched_with_apt_and_is_a_failure_never_a_skip(browser, path, package):
    """Even with a downloaded Firefox lying around: on Debian the rule is apt's package, or fail."""
    choice = pick(browser, "debian", [APT], downloads=[DOWNLOAD])
    assert (choice.path, choice.fetch, choice.skip) == (path, f"apt:{package}", False)
    assert path in choice.missing and f"apt-get install {package}" in choice.missing


# --- Ubuntu (GitHub's runners) and macOS: no apt of Debian's ----------------------------------------

@pytest.mark.parametrize("os_id, files", [("ubuntu", [APT, "/usr/bin/chromium-browser"]), ("macos", []),
                                          ("ubuntu", [APT, DEBIAN_CHROMIUM])],  # a runner image's own chromium
                         ids=["ubuntu", "macos", "ubuntu-runner-chromium"])
def test_elsewhere_chromium_is_playwrights_own_launched_without_a_path(os_id, files):
    assert pick("chromium", os_id, files) == Choice(None, "Playwright's own Chromium", fetch="playwright:chromium")


@pytest.mark.parametrize("os_id, download", [("ubuntu", DOWNLOAD), ("macos", MAC_DOWNLOAD)])
def test_elsewhere_firefox_is_the_download_the_first_listed(os_id, download):
    older = download.replace("150.0.2", "149.0")
    assert pick("firefox", os_id, [APT], downloads=[download, older]) == Choice(
        download, "puppeteer-core's Firefox, downloaded")


@pytest.mark.parametrize("os_id", ["ubuntu", "macos", ""])
def test_elsewhere_without_a_firefox_the_tests_skip_naming_it_and_test_sh_downloads_one(os_id):
    choice = pick("firefox", os_id, [APT])
    assert (choice.path, choice.fetch, choice.skip) == (None, "puppeteer:firefox", True)
    assert "no Firefox" in choice.missing and "MHA_FIREFOX" in choice.missing


def test_debian_without_apt_falls_back_like_any_other_system():
    assert pick("chromium", "debian").fetch == "playwright:chromium"
    assert pick("firefox", "debian").skip


@pytest.mark.parametrize("os_id", ["ubuntu", "macos"])
def test_an_installed_firefox_esr_is_used_off_debian_too(os_id):
    assert pick("firefox", os_id, [DEBIAN_FIREFOX], downloads=[DOWNLOAD]).path == DEBIAN_FIREFOX


# --- MHA_CHROMIUM, MHA_FIREFOX: win over everything ---------------------------------------------------

@pytest.mark.parametrize("os_id", ["debian", "ubuntu", "macos"])
@pytest.mark.parametrize("browser, variable", [("chromium", "MHA_CHROMIUM"), ("firefox", "MHA_FIREFOX")])
def test_environment_variable_wins_over_debian_and_downloads(browser, variable, os_id):
    mine = "/opt/mine/browser"
    choice = pick(browser, os_id, [APT, DEBIAN_CHROMIUM, DEBIAN_FIREFOX, mine], {variable: mine}, [DOWNLOAD])
    assert choice == Choice(mine, variable)


@pytest.mark.parametrize("browser, variable", [("chromium", "MHA_CHROMIUM"), ("firefox", "MHA_FIREFOX")])
def test_environment_variable_naming_no_executable_is_a_failure_not_a_fallback(browser, variable):
    choice = pick(browser, "ubuntu", [DEBIAN_CHROMIUM, DEBIAN_FIREFOX], {variable: "/nowhere"}, [DOWNLOAD])
    assert (choice.path, choice.fetch, choice.skip) == ("/nowhere", "", False)
    assert choice.missing == f"{variable}=/nowhere is not an executable file"


def test_empty_environment_variable_counts_as_unset():
    assert pick("firefox", "debian", [APT, DEBIAN_FIREFOX], {"MHA_FIREFOX": ""}).path == DEBIAN_FIREFOX


# --- the real machine: what the wrapper feeds choose() ----------------------------------------------

UBUNTU_RELEASE = """PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
ID=ubuntu
ID_LIKE=debian
"""


@pytest.mark.parametrize("text, platform, expected", [
    ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n', "linux", "debian"),
    (UBUNTU_RELEASE, "linux", "ubuntu"),  # ID_LIKE=debian does not make it Debian: its archive differs
    ('ID="rhel"\n', "linux", "rhel"),
    (None, "darwin", "macos"),  # macOS has no os-release
    (None, "linux", ""),
])
def test_os_id_reads_os_release_id_only(tmp_path, text, platform, expected):
    release = tmp_path / "os-release"
    if text is not None:
        release.write_text(text)
    assert browsers.os_id(release, platform) == expected


def test_downloaded_firefoxes_finds_the_pinned_build_in_both_layouts_newest_first(tmp_path, monkeypatch):
    """@puppeteer/browsers' cache: firefox/<platform>-<build>/, then firefox/firefox or Firefox.app/...; a download
    of another build (before a puppeteer-core bump) is not taken, so test.sh fetches the pinned one."""
    linux = tmp_path / "firefox" / "linux-stable_150.0.2" / "firefox" / "firefox"
    mac = tmp_path / "firefox" / "mac_arm-stable_150.0.2" / "Firefox.app" / "Contents" / "MacOS" / "firefox"
    older = tmp_path / "firefox" / "linux-stable_149.0" / "firefox" / "firefox"
    elsewhere = tmp_path / "firefox" / "linux-stable_150.0.2" / "firefox" / "updater"
    for when, path in [(2000, linux), (1000, mac), (4000, older), (3000, elsewhere)]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, (when, when))
    monkeypatch.setattr(browsers, "DOWNLOADS", tmp_path)
    assert browsers.downloaded_firefoxes("stable_150.0.2") == [str(linux), str(mac)]
    assert browsers.downloaded_firefoxes("") == []  # no puppeteer-core installed: no pin, no download to trust


def test_the_pin_is_read_from_puppeteer_cores_revisions(tmp_path):
    revisions = tmp_path / "revisions.js"
    revisions.write_text("exports.PUPPETEER_REVISIONS = Object.freeze({\n    chrome: '140.0',\n"
                         "    firefox: 'stable_150.0.2',\n});\n")
    assert browsers.pinned_firefox(revisions) == "stable_150.0.2"
    assert browsers.pinned_firefox(tmp_path / "missing.js") == ""
