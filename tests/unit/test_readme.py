"""The README's snippet prints what the README says it prints."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_snippet_prints_its_documented_output():
    text = README.read_text()
    code, printed = re.search(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", text, re.S).groups()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert out.getvalue() == printed
