"""The Spark home and the flags of every Spark 4 JVM the tests start (drivers, executors, the
Connect server, the standalone master and worker, the streaming job): C1 only, one GC thread,
Spark's quiet log4j2 config, and the class-data archive of PySpark's jars
(tests/interop/harness/cds.py), made once by a warm-up session (``python -m tests.spark.jvm``,
run by the CI's cache step) and mapped by every later JVM: a local session and its first job
start in about half the time."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.interop.harness import cds
from tests.interop.harness._common import LEAN_JVM_FLAGS, cache_root, file_lock

ROOT = Path(__file__).resolve().parents[2]


def spark_home() -> Path:
    """The Spark home of the tests' Spark 4 JVMs: the installed pyspark package, hard-linked once
    into the cache (copied across file systems) under its version and jar list. A fresh clone's
    venv installs new jar files; this home keeps the paths and times of the first, so the
    class-data archive made for them (a 50 s warm-up) is made once per machine, not per clone.
    Its Python source zips carry this interpreter's bytecode (``_add_bytecode``)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise RuntimeError("pyspark is not installed (pip install -e '.[dev]')")
    package = Path(spec.origin).parent
    version = importlib.metadata.version("pyspark")
    digest = hashlib.sha256()
    for jar in sorted((package / "jars").glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}\n".encode())
    home = cache_root() / "spark-home" / f"pyspark-{version}-{digest.hexdigest()[:16]}"
    lib = home / "python" / "lib"
    compiled = lib / f".bytecode.{sys.implementation.cache_tag}"
    if not (home / "bin" / "spark-submit").exists() or not compiled.exists():
        with file_lock(home.parent / f"{home.name}.lock"):
            if not (home / "bin" / "spark-submit").exists():
                _link_tree(package, home)
            if not compiled.exists():
                for zipped in sorted(lib.glob("*.zip")):  # pyspark.zip, py4j-*-src.zip
                    _add_bytecode(zipped)
                compiled.touch()
    return home


def _link_tree(source: Path, target: Path) -> None:
    """``target`` becomes a whole copy of ``source`` made of hard links, renamed into place."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        part = Path(tmp) / "home"
        shutil.copytree(source, part, copy_function=link, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.rmtree(target, ignore_errors=True)
        part.rename(target)


def _add_bytecode(zipped: Path) -> None:
    """Put this interpreter's bytecode beside each module of a source zip of PySpark's (``X.pyc`` next
    to ``X.py``, unchecked hash-based, as zipimport reads it). Spark puts the zip first on the
    path of every Python process it starts (the data source's planner daemons, executors'
    workers), and a module imported from a zip without bytecode is compiled again in each
    process: about 1.3 s of CPU per daemon. Another interpreter finds other magic numbers and
    compiles from the source, as before. PySpark's own tests are left as they are; bytecode is
    stored uncompressed (read faster)."""
    import importlib.util
    import warnings
    import zipfile

    tmp = zipped.with_name(zipped.name + ".tmp")
    with zipfile.ZipFile(zipped) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename.endswith(".pyc"):
                continue  # made again below (a run stopped before its mark was written)
            data = src.read(info)
            out.writestr(info, data)
            if info.filename.endswith(".py") and "/tests/" not in info.filename:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    code = compile(data, f"{zipped}/{info.filename}", "exec", dont_inherit=True)
                pyc = importlib._bootstrap_external._code_to_hash_pyc(  # pyright: ignore[reportAttributeAccessIssue]
                    code, importlib.util.source_hash(data), checked=False
                )
                out.writestr(zipfile.ZipInfo(info.filename + "c", info.date_time), bytes(pyc))
    tmp.replace(zipped)  # a new file: the venv's zip, which the home's was a link of, stays as it was


def archive() -> Path:
    """The archive's path for the jars of the tests' Spark home and the java its launcher picks."""
    home = spark_home()
    jars = sorted((home / "jars").glob("*.jar"))
    return cds.archive_path(f"spark-{importlib.metadata.version('pyspark')}", cds.java_on_path(), jars)


def java_options() -> str:
    """``spark.driver.extraJavaOptions`` (and the executors', the daemons') of the tests."""
    from paimon_core.engines.spark.session import log4j2_config_path

    flags = [f"-Dlog4j2.configurationFile=file:{log4j2_config_path()}", *LEAN_JVM_FLAGS]
    return " ".join([*flags, *cds.use_flags(archive())])


def ensure_archive() -> Path | None:
    """Make the archive once: a local session writes, reads, aggregates and runs SQL through the
    ``paimon`` data source, then ends normally (the archive is written at the JVM's exit)."""

    def warm_up(flags: list[str]) -> None:
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
        subprocess.run(
            [sys.executable, "-m", "tests.spark.jvm", "--warm-up", " ".join(flags)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )

    return cds.build(archive(), warm_up, prune=True)  # a fresh venv has new jar paths: a new archive


def _warm_up(extra_flags: str) -> None:
    import tempfile

    import pyarrow as pa

    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.engines.spark.engine import register
    from paimon_core.engines.spark.session import create_session
    from paimon_core.metadata.schema import Schema

    opts = f"{java_options()} {extra_flags}"  # no archive yet: the tests' flags alone
    spark = create_session(
        "local[2]",
        conf={"spark.sql.shuffle.partitions": "2", "spark.driver.extraJavaOptions": opts},
    )
    with tempfile.TemporaryDirectory() as wh:
        cat = FileSystemCatalog(wh)
        cat.create_database("db")
        schema = Schema(Schema.parse_columns("id BIGINT NOT NULL, cat STRING"), (), ("id",), {"bucket": "2"})
        cat.create_table("db.t", schema)
        register(spark, wh)
        rows = pa.table({"id": pa.array(range(100), pa.int64()), "cat": [f"c{i % 3}" for i in range(100)]})
        spark.createDataFrame(rows.to_pandas()).write.format("paimon").mode("append").save("db.t")
        df = spark.read.format("paimon").load("db.t")
        df.groupBy("cat").count().orderBy("cat").collect()
        df.createOrReplaceTempView("t")
        spark.sql("SELECT cat, sum(id) FROM t WHERE id > 3 GROUP BY cat").toArrow()
        spark.range(1000).repartition(2).selectExpr("id % 7 AS k").distinct().count()
    spark.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--warm-up"]:
        _warm_up(sys.argv[2])
    else:
        print(f"spark class-data archive: {ensure_archive()}")
