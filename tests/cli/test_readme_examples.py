"""Every `paimon` command in the README's shell examples names commands and options that exist:
each one runs with ``--help`` appended (Click parses every option before it answers ``--help``,
so an unknown command, option or misplaced flag fails), so an example cannot drift from the CLI.

The examples that make a story on one table run for real on a scratch warehouse
(`test_the_using_it_example_runs`); the others need servers, clusters or files of their own.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands(text: str) -> list[tuple[int, list[str]]]:
    """(line number, argv after `paimon`) of every `paimon` command in the ```bash blocks."""
    out = []
    lines = text.splitlines()
    in_block = False
    pending, start = "", 0
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_block = line.strip() == "```bash" and not in_block
            continue
        if not in_block:
            continue
        if not pending:
            start = n
        pending += line.rstrip("\\") + " "
        if line.endswith("\\"):
            continue
        command, pending = pending, ""
        for part in re.split(r"\|\||&&|\|", command):
            words = _words(part)
            if words is None:
                continue
            for i, w in enumerate(words):
                if w == "paimon" or w.endswith("/paimon"):
                    out.append((start, words[i + 1 :]))
                    break
    return out


def _words(part: str) -> list[str] | None:
    part = re.sub(r"\[[^\]]*\]", " ", part)  # optional parts of a usage line: [--commit-rows N]
    try:
        return shlex.split(part, comments=True)
    except ValueError:
        return None


COMMANDS = _commands(README.read_text())


def test_the_readme_has_examples():
    assert len(COMMANDS) > 80


@pytest.mark.parametrize("line, argv", COMMANDS, ids=[f"README:{n}" for n, _ in COMMANDS])
def test_readme_command_parses(cli, line, argv):
    r = cli(*argv, "--help", warehouse=False, code=None)
    assert r.exit_code == 0, f"README.md:{line}: paimon {shlex.join(argv)}\n{r.stderr or r.stdout}"


def _block_after(heading: str) -> list[tuple[int, list[str]]]:
    """The commands of the first ```bash block after `heading`."""
    text = README.read_text()
    at = text.index(heading)
    start = text.index("```bash", at)
    end = text.index("```", start + 7)
    first_line = text[:start].count("\n") + 1
    return [(first_line + n - 1, argv) for n, argv in _commands(text[start : end + 3])]


def test_the_using_it_example_runs(cli, tmp_path, monkeypatch):
    """The "Using it" block, command by command, on a scratch warehouse with the files it names
    (orders of two days, a fix of one day, the column update of a data-evolution table), at a
    clock of 2024-01-02 09:00 UTC so that its --as-of time follows the first snapshot."""
    import datetime as dt
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    def orders(day: str, ids: range) -> pa.Table:
        return pa.table(
            {
                "id": pa.array(list(ids), pa.int64()),
                "customer": [f"c{i}" for i in ids],
                "amount": pa.array([decimal.Decimal(i * 7) for i in ids], pa.decimal128(10, 2)),
                "ts": pa.array([dt.datetime(2024, 1, 1, 12) for _ in ids], pa.timestamp("us")),
                "dt": [day] * len(ids),
            }
        )

    pq.write_table(orders("2024-01-01", range(0, 20)), "orders-2024-01-01.parquet")
    pq.write_table(orders("2024-01-02", range(20, 40)), "orders-2024-01-02.parquet")
    pq.write_table(orders("2024-01-02", range(40, 45)), "fix.parquet")
    env = {"PAIMON_CLOCK_MS": str(int(dt.datetime(2024, 1, 2, 9, tzinfo=dt.timezone.utc).timestamp() * 1000))}
    block = _block_after("## Using it")
    assert block and block[0][1][:2] == ["create-table", "shop.orders"], block[:1]
    docs_prepared = False
    for line, argv in block:
        if "shop.docs" in argv and not docs_prepared:  # the data-evolution table it updates
            cli("create-table", "shop.docs", "--schema", "id INT, title STRING", "-O", "row-tracking.enabled=true",
                "-O", "data-evolution.enabled=true", warehouse=False, env=env)  # fmt: skip
            Path("docs.csv").write_text("id,title\n1,old\n2,old\n")
            cli("ingest", "docs.csv", "-t", "shop.docs", warehouse=False, env=env)
            Path("fixes.csv").write_text("_ROW_ID,title\n0,new\n")
            docs_prepared = True
        if ">" in argv:  # a shell redirection: the output goes to the file
            argv, target = argv[: argv.index(">")], argv[argv.index(">") + 1]
            r = cli(*argv, warehouse=False, env=env, code=None)
            Path(target).write_text(r.stdout)
        else:
            r = cli(*argv, warehouse=False, env=env, code=None)
        assert r.exit_code == 0, f"README.md:{line}: paimon {shlex.join(argv)}\n{r.stderr}"
    rows = [line for line in Path("rows.jsonl").read_text().splitlines() if line.strip()]
    assert len(rows) == 25  # 20 of 2024-01-01, the 5 of the fix replacing 2024-01-02's 20
