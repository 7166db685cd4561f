"""Spark DataFrames of a table's rows, shipping ``paimon_core`` to a session's executors, and
writing a DataFrame as a folder of Parquet part files (``read/diff/sql --out``).

The lowest layer of the Spark engine (``engine``, ``sql`` and ``source`` build on it):
the driver plans splits, each task reads one with ``paimon_core`` (no Java connector). pyspark is
only imported by the sessions passed in.
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import sys
import tempfile
import threading
import uuid
import zipfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from paimon_core.data.no_rows import no_rows
from paimon_core.engines.spark import tasks as T
from paimon_core.engines.spark.types import spark_schema
from paimon_core.errors import PaimonError

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.table import FileStoreTable


def core_zip() -> str:
    """``paimon_core`` (the folder of this package) zipped as ``paimon_core/``; named by content
    hash so shipping it twice to one session is harmless. Each module goes in as source and as
    bytecode of this interpreter (an unchecked-hash ``.pyc`` beside it), so a worker of the same
    Python version imports it without compiling it again (about 0.3 s per worker process); another
    version's worker ignores the bytecode and compiles the source."""
    root = str(Path(__file__).resolve().parents[2])  # paimon_core/engines/spark/frames.py -> paimon_core/
    files = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py"):
                full = os.path.join(dirpath, n)
                files.append((os.path.relpath(full, root), full))
    h = hashlib.sha1(sys.implementation.cache_tag.encode())
    for rel, full in files:
        h.update(rel.encode())
        with open(full, "rb") as f:
            h.update(f.read())
    path = os.path.join(tempfile.gettempdir(), f"paimon_core-{h.hexdigest()[:12]}.zip")
    if not os.path.exists(path):
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for rel, full in files:
                name = os.path.join("paimon_core", rel)
                z.write(full, name)
                z.writestr(name + "c", _bytecode(full, name))
        os.replace(tmp, path)
    return path


def _bytecode(source: str, name: str) -> bytes:
    """``source`` compiled, as an unchecked-hash .pyc whose tracebacks name ``name``."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "m.pyc")
        mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
        py_compile.compile(source, cfile=out, dfile=name, doraise=True, invalidation_mode=mode)
        with open(out, "rb") as f:
            return f.read()


def is_connect(spark) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


_shipped: dict[int, str] = {}  # id(session or SparkContext) -> zip shipped to it
_ship_lock = threading.Lock()


def ship_core(spark) -> None:
    """Make ``paimon_core`` importable on the session's executors (once per session)."""
    path = core_zip()
    with _ship_lock:
        key = id(spark) if is_connect(spark) else id(spark.sparkContext)
        if _shipped.get(key) == path:
            return
        if is_connect(spark):
            spark.addArtifacts(path, pyfile=True)
        else:
            spark.sparkContext.addPyFile(path)
        _shipped[key] = path


def splits_dataframe(spark, table: FileStoreTable, splits, columns=None, predicate=None):
    reader = table.new_read(columns, predicate)  # validates the columns on the driver
    sschema, target = spark_schema(no_rows(table.schema.arrow_schema()).select(reader.columns).schema)
    splits = [s for s in splits if s.files]
    if not splits:
        return spark.createDataFrame([], sschema)
    ship_core(spark)
    spec = T.TableSpec.of(table)
    return spark.range(0, len(splits), 1, len(splits)).mapInArrow(
        partial(T.read_task, spec, splits, reader.columns, predicate, target), sschema
    )


def to_dataframe(
    spark,
    table: FileStoreTable,
    snapshot_id: int | Snapshot | None = None,
    columns=None,
    where: str | None = None,
):
    """The rows of ``table`` at a snapshot (latest by default) as a Spark DataFrame, without any
    Java connector: the driver plans the splits, each task reads one with ``paimon_core``.

    ``table``: a FileStoreTable. ``where``: the core's filter syntax (pushed into planning and
    reading). ``snapshot_id`` may also be a Snapshot (e.g. ``table.resolve_snapshot(tag=...)``);
    an older snapshot is read with the schema it was committed with. Works on a classic and a
    Spark Connect session."""
    from paimon_core.metadata.snapshot import Snapshot

    if isinstance(snapshot_id, Snapshot):
        snap, table = snapshot_id, table.for_snapshot(snapshot_id)
    else:
        at = table.at(snapshot_id)
        snap, table = at.snapshot, at.table
    pred = table.parse_filter(where)
    splits = table.plan(snap, pred) if snap is not None else []
    return splits_dataframe(spark, table, splits, columns, pred)


# ---- driver-side planning


def write_parquet_dir(df, path: str) -> str:
    """Executors write ``df`` as a folder of Parquet part files at ``path`` (Spark's layout, with
    a ``_SUCCESS`` marker). An existing folder is replaced only if Spark wrote it (has
    ``_SUCCESS``) or it is empty; anything else existing at ``path`` is an error. Returns the
    absolute path (or URI) written."""
    import fsspec

    if "://" not in path:
        path = os.path.abspath(path)
    fs, fpath = fsspec.core.url_to_fs(path)
    mode = "errorifexists"
    if fs.exists(fpath):
        if not fs.isdir(fpath):
            raise PaimonError(
                f"{path} exists and is a file: the Spark engine writes a folder of Parquet part files"
            )
        names = [n.rstrip("/").rsplit("/", 1)[-1] for n in fs.ls(fpath, detail=False)]
        if names and "_SUCCESS" not in names:
            raise PaimonError(f"{path} is a folder Spark did not write (no _SUCCESS): not replacing it")
        mode = "overwrite"
    df.write.mode(mode).parquet(path)
    return path
