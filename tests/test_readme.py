"""The README's Python example runs as written, and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_example() -> str:
    text = README.read_text()
    section = text.split("## Using the library from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_python_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_python_example(), "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert eval(lines[0]) == [{"id": 1, "name": "ann", "points": 10}, {"id": 2, "name": "bob", "points": 12}]
    assert lines[1] == "2"
    assert eval(lines[2]) == [{"id": 2}]
    changes = eval(lines[3])
    assert [(c["_row_kind"], c["id"], c["points"]) for c in changes] == [("-U", 2, 5), ("+U", 2, 12)]
    assert (tmp_path / "warehouse" / "shop.db" / "users" / "tag" / "tag-v1").exists()
