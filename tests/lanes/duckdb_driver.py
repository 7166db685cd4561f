"""DuckDB's iceberg extension (run in its venv, DuckDB 1.5.5): reads Iceberg metadata files.

Reads one JSON request on stdin, ``{"reads": [{"metadata": FILE, "snapshot": ID | null}, ...],
"out": DIR}``, and writes each read's rows as an Arrow IPC file ``out/<i>.arrow``. Prints one JSON
list, in request order: ``{"file": path} | {"error": message}``. The extensions load from the
``duckdb-extension-avro`` and ``duckdb-extension-iceberg`` wheels (no network). Imports nothing
of this project.
"""

from __future__ import annotations

import json
import os
import sys


def connect():
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg

    con = duckdb.connect()
    for module, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        path = os.path.join(
            os.path.dirname(module.__file__),
            "extensions",
            f"v{duckdb.__version__}",
            f"{name}.duckdb_extension",
        )
        con.execute(f"INSTALL '{path}'")
        con.execute(f"LOAD {name}")
    return con


def main() -> int:
    req = json.load(sys.stdin)
    con = connect()
    answers = []
    for i, read in enumerate(req["reads"]):
        args = f"'{read['metadata']}'"
        if read.get("snapshot") is not None:
            args += f", snapshot_from_id => {int(read['snapshot'])}"
        try:
            table = con.sql(f"SELECT * FROM iceberg_scan({args})").fetch_arrow_table()
        except Exception as e:  # noqa: BLE001 - each engine error is the answer for its read
            answers.append({"error": " ".join(str(e).split())})
            continue
        path = os.path.join(req["out"], f"{i}.arrow")
        import pyarrow as pa

        with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
            w.write_table(table)
        answers.append({"file": path})
    json.dump(answers, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
