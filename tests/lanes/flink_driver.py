"""PyFlink driver, 1.20 or 2.0 (runs in the lane's own venv; see engines.py for its requests).

argv: a JSON object {"checkpoints": DIR or null, "restore": DIR or null, ...}. The Paimon
connector and the Hadoop client jars are on the JVM's class path (engines.py), as in a Flink
distribution's lib/: each job's mini-cluster then uses the classes loaded once, where
``pipeline.jars`` would load them again in a class loader per job (about 2 s more a statement).
One TableEnvironment per mode, created on first use, both with parallelism 1 and every address
on 127.0.0.1.

Requests:
* ``sql(mode, statements, warehouse)``: run each statement in the batch or streaming
  environment, after a ``paimon`` catalog on `warehouse` (created once per warehouse and
  mode). A query returns its rows ({column: value, "_row_kind": "+I"...}); an INSERT/UPDATE/
  DELETE in batch mode is waited for; in streaming mode it is submitted and its job id returned.
* ``wait(job)``: wait until that streaming job ends.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# no Python UDFs here: "process" mode keeps PyFlink from opening its loopback worker server
# (a gRPC port on every interface)
os.environ["_python_worker_execution_mode"] = "process"

import lane_protocol  # noqa: E402  sibling file; the script's folder is on sys.path
from pyflink.common import Configuration  # noqa: E402
from pyflink.table import EnvironmentSettings, TableEnvironment  # noqa: E402

LOOPBACK = {
    "rest.bind-address": "127.0.0.1",
    "rest.address": "127.0.0.1",
    "rest.bind-port": "0",
    "jobmanager.rpc.address": "127.0.0.1",
    "jobmanager.bind-host": "127.0.0.1",
    "taskmanager.host": "127.0.0.1",
    "taskmanager.bind-host": "127.0.0.1",
}
KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}
ARGS = json.loads(sys.argv[1])
# checkpoint keys: 2.0 removed the `state.checkpoints.*` and `execution.savepoint.path` names that
# 1.20 still takes (the new ones date from 1.20, the old ones are kept for it)
_FLINK2 = int(__import__("pyflink.version").version.__version__.split(".")[0]) >= 2
CHECKPOINT_DIR = "execution.checkpointing.dir" if _FLINK2 else "state.checkpoints.dir"
CHECKPOINTS_RETAINED = "execution.checkpointing.num-retained" if _FLINK2 else "state.checkpoints.num-retained"
RESTORE_FROM = "execution.state-recovery.path" if _FLINK2 else "execution.savepoint.path"
ENVS: dict[str, TableEnvironment] = {}
CATALOGS: dict[tuple[str, str], str] = {}
JOBS: dict[str, object] = {}


def _env(mode: str) -> TableEnvironment:
    if mode not in ENVS:
        conf = Configuration()
        conf.set_string("parallelism.default", "1")
        conf.set_string("table.dml-sync", "false")
        for k, v in LOOPBACK.items():
            conf.set_string(k, v)
        if mode == "streaming":
            conf.set_string("execution.checkpointing.interval", str(ARGS.get("checkpoint_interval", "2s")))
            if ARGS.get("checkpoints"):
                conf.set_string(CHECKPOINT_DIR, Path(ARGS["checkpoints"]).resolve().as_uri())
                conf.set_string(
                    "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION"
                )
                conf.set_string(CHECKPOINTS_RETAINED, "3")
            if ARGS.get("restore"):
                conf.set_string(RESTORE_FROM, Path(ARGS["restore"]).resolve().as_uri())
        builder = EnvironmentSettings.new_instance().with_configuration(conf)
        settings = (builder.in_batch_mode() if mode == "batch" else builder.in_streaming_mode()).build()
        ENVS[mode] = TableEnvironment.create(settings)
    return ENVS[mode]


def _catalog(t_env: TableEnvironment, mode: str, warehouse: str) -> None:
    key = (mode, warehouse)
    if key not in CATALOGS:
        name = f"wh{len(CATALOGS)}"
        uri = Path(warehouse).resolve().as_uri()
        t_env.execute_sql(f"CREATE CATALOG {name} WITH ('type' = 'paimon', 'warehouse' = '{uri}')").wait()
        CATALOGS[key] = name
    t_env.use_catalog(CATALOGS[key])


def _column_names(result) -> list[str]:
    if hasattr(result, "get_resolved_schema"):  # 2.0 removed TableSchema
        return list(result.get_resolved_schema().get_column_names())
    return list(result.get_table_schema().get_field_names())


def sql(mode: str, statements: list[str], warehouse: str) -> list:
    t_env = _env(mode)
    _catalog(t_env, mode, warehouse)
    out = []
    for stmt in statements:
        head = stmt.lstrip().split(None, 1)[0].upper()
        if head == "CALL":  # a procedure's job is waited for only with dml-sync on
            t_env.get_config().set("table.dml-sync", "true")
            try:
                t_env.execute_sql(stmt).wait()
            finally:
                t_env.get_config().set("table.dml-sync", "false")
            out.append(None)
            continue
        result = t_env.execute_sql(stmt)
        if head in ("SELECT", "WITH"):
            names = _column_names(result)
            rows = []
            with result.collect() as it:
                for row in it:
                    d = dict(zip(names, row, strict=True))
                    d["_row_kind"] = KINDS[row.get_row_kind().value]
                    rows.append(d)
            out.append(rows)
        elif head in ("INSERT", "UPDATE", "DELETE") and mode == "streaming":
            client = result.get_job_client()
            job = str(client.get_job_id())
            JOBS[job] = result
            out.append({"job": job})
        else:
            result.wait()
            out.append(None)
    return out


def wait(job: str) -> None:
    JOBS.pop(job).wait()  # type: ignore[attr-defined]


def ready() -> dict:
    import pyflink.version  # noqa: PLC0415

    return {"pyflink": pyflink.version.__version__}


if __name__ == "__main__":
    lane_protocol.serve({"sql": sql, "wait": wait}, ready)
