"""The CLI on an S3 warehouse: storage options from paimon.toml's ``[storage]`` table or from
the standard AWS environment variables."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from tests.infra import missing

PAIMON = shutil.which("paimon", path=os.path.dirname(sys.executable))
if PAIMON is None:
    missing("the paimon console script is not installed next to the interpreter (pip install -e .)")


def _run(args, cwd, env=None):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PAIMON_"))}
    base["AWS_EC2_METADATA_DISABLED"] = "true"
    p = subprocess.run(
        [PAIMON, *args], cwd=cwd, env={**base, **(env or {})}, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, f"paimon {' '.join(args)} failed ({p.returncode}): {p.stderr}"
    return p.stdout


def _json(text: str) -> list:
    """``-o json`` output: one JSON array, or one object per line."""
    text = text.strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _lane(cwd, uri, env=None):
    src = cwd / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2, 3], pa.int64()), "dt": ["a", "b", "a"]}), src)
    _run(
        ["-w", uri, "create-table", "db.t", "--schema", "id BIGINT NOT NULL, dt STRING", "-p", "dt"], cwd, env
    )
    _run(["-w", uri, "ingest", "--table", "db.t", str(src)], cwd, env)
    rows = _json(_run(["-w", uri, "-o", "json", "read", "--table", "db.t"], cwd, env))
    assert sorted(r["id"] for r in rows) == [1, 2, 3]
    assert "t" in _run(["-w", uri, "tables", "db"], cwd, env)
    assert _run(["-w", uri, "drop-table", "db.t"], cwd, env) == "dropped table db.t\n"
    assert _json(_run(["-w", uri, "-o", "json", "tables", "db"], cwd, env)) == []


def test_cli_with_storage_table_in_paimon_toml(s3_warehouse, tmp_path):
    uri, opts = s3_warehouse
    lines = ["[storage]"] + [f"{k} = {json.dumps(v)}" for k, v in opts.items()]
    (tmp_path / "paimon.toml").write_text("\n".join(lines) + "\n")
    _lane(tmp_path, uri)


def test_cli_with_aws_environment(s3_warehouse, tmp_path):
    uri, opts = s3_warehouse
    env = {
        "AWS_ACCESS_KEY_ID": opts["access_key_id"],
        "AWS_SECRET_ACCESS_KEY": opts["secret_access_key"],
        "AWS_ENDPOINT_URL": opts["endpoint"],
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    _lane(tmp_path, uri, env)


def test_cli_with_storage_flags(s3_warehouse, tmp_path):
    uri, opts = s3_warehouse
    flags = [a for k, v in opts.items() for a in ("--storage", f"{k}={v}")]
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), src)
    _run([*flags, "-w", uri, "create-table", "db.f", "--schema", "id BIGINT"], tmp_path)
    _run([*flags, "-w", uri, "ingest", "-t", "db.f", str(src)], tmp_path)
    assert sorted(
        r["id"] for r in _json(_run([*flags, "-w", uri, "-o", "json", "read", "-t", "db.f"], tmp_path))
    ) == [1, 2]
