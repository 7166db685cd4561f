"""ClickHouse's own Paimon reader (chDB, run in its venv): reads tables with ``paimonLocal``.

Reads one JSON request on stdin, ``{"cwd": DIR, "tables": [folder, ...], "out": DIR}`` (table
folders relative to ``cwd``: ClickHouse reads only under its working directory), and writes each
table's rows as an Arrow IPC file ``out/<i>.arrow``. Prints one JSON object: ``{folder: {"file":
path} | {"error": message}}``. Imports nothing of this project.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    import chdb

    req = json.load(sys.stdin)
    os.chdir(req["cwd"])
    answers = {}
    for i, table in enumerate(req["tables"]):
        try:
            data = chdb.query(f"SELECT * FROM paimonLocal('{table}')", "Arrow").bytes()
        except Exception as e:  # noqa: BLE001 - each engine error is the answer for its table
            answers[table] = {"error": " ".join(str(e).split())}
            continue
        path = os.path.join(req["out"], f"{i}.arrow")
        with open(path, "wb") as f:
            f.write(data)
        answers[table] = {"file": path}
    json.dump(answers, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
