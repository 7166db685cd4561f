"""Java Paimon 0.9 and 1.4.2 read the tables the Spark engine wrote (local[2] lane): after ingest and
after a Spark compaction, for append and primary-key tables, as a plain model of the input files
says (every row for append tables, the last row of each key for primary-key tables)."""

from __future__ import annotations

import os
import shutil

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.ops.ingest import ingest_files
from tests.infra import missing
from tests.spark.test_spark_engine import KINDS, inputs, make, rows  # noqa: F401 - `inputs` is a fixture

pytestmark = [pytest.mark.interop, pytest.mark.parametrize("engine", ["local"], indirect=True)]

TYPES = {"ts": "TIMESTAMP(6)"}


def _have_java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool((home and os.path.exists(os.path.join(home, "bin", "java"))) or shutil.which("java"))


def test_java_reads_spark_written_tables(engine, inputs, tmp_path):  # noqa: F811
    if not _have_java():
        missing("no JDK on PATH or JAVA_HOME")
    from tests.interop.harness import JavaPaimon
    from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    # the `inputs` fixture's files, in ingest order
    written = [
        r
        for part in (rows(300, 0, "a"), rows(120, 100, "b"), rows(200, 50, "c"))
        for r in rows_from_arrow(part, TYPES)
    ]
    last_per_key = list({r["id"]: r for r in written}.values())  # dt is a function of id
    kinds = ("append", "append_part_b2", "pk_b2", "pk_part_b3", "pk_part_dynamic")
    expected, requests = [], []
    for kind in kinds:
        want = last_per_key if KINDS[kind][1] else written
        t = make(cat, kind, kind)
        ingest_files(t, inputs[:2], engine=engine)
        ingest_files(t, inputs[2:], engine=engine)
        t = cat.get_table(t.identifier)
        snap = t.snapshots.latest().id
        expected.append((f"{kind}@{snap}", want))
        requests.append({"op": "read", "warehouse": wh, "table": t.identifier, "snapshot": snap})
        messages = engine.compact(t, t.plan(t.snapshots.latest(), all_levels=True), full=True)
        t.commit(messages, kind="COMPACT")
        t = cat.get_table(t.identifier)
        expected.append((f"{kind}@compacted", want))
        requests.append(
            {"op": "read", "warehouse": wh, "table": t.identifier, "snapshot": t.snapshots.latest().id}
        )
    from tests.interop.harness.java_paimon import VERSIONS as JAVA_VERSIONS

    for version in JAVA_VERSIONS:  # both releases over the same tables: the Spark work runs once
        results = JavaPaimon(version=version).run(requests)
        for (label, want), res in zip(expected, results, strict=True):
            assert_same_rows(
                res["rows"], want, label_a=f"java {version} {label}", label_b="model of the inputs"
            )
