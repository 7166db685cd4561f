"""Java Paimon 0.9, 1.4.2 and 2.0.0 as batch oracles for interop tests.

`ensure_java_classpath(version=...)` fetches that release's jars and compiles `java/InteropDriver.java`
with `java/compat/<release line>/Compat.java` (the calls whose API differs) into the cache folder
(once per version and source digest, under a file lock); `JavaPaimon(version=...).run([...])` starts
one JVM per batch of requests. See README.md in this folder for the request ops and the canonical
value encoding.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from . import cds
from ._common import (
    LEAN_JVM_FLAGS,
    BatchDriver,
    InteropError,
    cache_root,
    check_results,
    file_lock,
    run_json_batch,
)
from .maven import MavenJar, fetch_jars

HERE = Path(__file__).resolve().parent
JAVA_SRC = HERE / "java"
PAIMON_JAR = "paimon-python-java-bridge-0.9.0.jar"
PYPAIMON_SDIST = "pypaimon==0.2.0"  # its sdist bundles the Java Paimon 0.9 bridge jar
PYSPARK = "pyspark==4.3.0"  # source of hadoop-client-api/-runtime jars
MAIN_CLASS = "InteropDriver"
JAVA_OPTS_ENV = "PAIMON_CLI_INTEROP_JAVA_OPTS"

# Java Paimon 1.4.2 (the newest release Maven Central serves here): the bundle and the compile
# dependencies its pom declares (snappy for Parquet/Avro/Iceberg manifests, lz4, slf4j), SHA-256 pinned
PAIMON_14_JARS = (
    MavenJar(
        "org.apache.paimon",
        "paimon-bundle",
        "1.4.2",
        "85a1587409e6c044b46eb20370a46ecd288576b8bc7aadf6b0432a4f2370f5d1",
    ),
    MavenJar(
        "org.xerial.snappy",
        "snappy-java",
        "1.1.10.8",
        "50485d06037fea3d6e40c968386feeca6338cc9872e25549593ff3eb352cefcc",
    ),
    MavenJar(
        "at.yawk.lz4",
        "lz4-java",
        "1.10.4",
        "cfc173bd3c7c34751ae2100fc084787ebd1ff1f3f5e494c5787b0c2c382cbfbe",
    ),
    MavenJar(
        "org.slf4j", "slf4j-api", "1.7.32", "3624f8474c1af46d75f98bc097d7864a323c81b3808aa43689a6e1c601c027be"
    ),
)
# Java Paimon 2.0.0: Central serves no paimon-bundle 2.0.0; paimon-flink-2.0 2.0.0 shades the whole
# 2.0.0 core (catalogs, formats, REST client, Iceberg) and runs without a Flink class on the
# classpath. Its other dependencies are 1.4.2's.
PAIMON_20_JARS = (
    MavenJar(
        "org.apache.paimon",
        "paimon-flink-2.0",
        "2.0.0",
        "f9999454cd1827da1a96556a6ef0525a98fddcfa4370837a51119fecc181f5f0",
    ),
    *PAIMON_14_JARS[1:],
)
# version -> the compat source folder under java/compat/ (2.0.0's API is 1.4's for every call the
# driver makes)
VERSIONS = {"0.9": "0.9", "1.4.2": "1.4", "2.0.0": "1.4"}
MAVEN_JARS = {"1.4.2": PAIMON_14_JARS, "2.0.0": PAIMON_20_JARS}
DEFAULT_VERSION = "0.9"

__all__ = ["JavaPaimon", "ensure_java_classpath", "InteropError", "VERSIONS"]


def _java_bin(tool: str) -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / tool).exists():
        return str(Path(home) / "bin" / tool)
    found = shutil.which(tool)
    if not found:
        raise InteropError(f"'{tool}' not found: the Java interop tests need a JDK 17 on PATH or JAVA_HOME")
    return found


def _pip_download(args: list[str], dest: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(dest), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise InteropError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")


def _fetch_paimon_jar(root: Path) -> Path:
    target = root / PAIMON_JAR
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        _pip_download(["--no-binary", ":all:", PYPAIMON_SDIST], Path(tmp))
        sdist = next(Path(tmp).glob("pypaimon-*.tar.gz"))
        with tarfile.open(sdist) as tf:
            member = next(m for m in tf.getmembers() if m.name.endswith("deps/jars/" + PAIMON_JAR))
            src = tf.extractfile(member)
            assert src is not None
            part = root / (PAIMON_JAR + ".part")
            with open(part, "wb") as out:
                shutil.copyfileobj(src, out)
        part.replace(target)
    return target


def _fetch_hadoop_jars(root: Path) -> list[Path]:
    targets = [root / "hadoop-client-api.jar", root / "hadoop-client-runtime.jar"]
    if all(t.exists() for t in targets):
        return targets
    names = ("hadoop-client-api-", "hadoop-client-runtime-")
    try:
        import pyspark  # noqa: PLC0415

        jar_dir = Path(pyspark.__file__).resolve().parent / "jars"
        found = [next(iter(sorted(jar_dir.glob(n + "*.jar"))), None) for n in names]
    except ImportError:
        found = [None, None]
    if all(found):
        for src, dst in zip(found, targets, strict=True):
            shutil.copyfile(src, str(dst) + ".part")
            Path(str(dst) + ".part").replace(dst)
        return targets
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        _pip_download([PYSPARK], Path(tmp))
        pkg = next(Path(tmp).glob("pyspark-*"))
        for prefix, dst in zip(names, targets, strict=True):
            part = Path(str(dst) + ".part")
            if pkg.suffix == ".whl":
                with zipfile.ZipFile(pkg) as zf:
                    name = next(n for n in zf.namelist() if "/jars/" + prefix in n and n.endswith(".jar"))
                    with zf.open(name) as src, open(part, "wb") as out:
                        shutil.copyfileobj(src, out)
            else:
                with tarfile.open(pkg) as tf:
                    m = next(
                        m for m in tf.getmembers() if "/jars/" + prefix in m.name and m.name.endswith(".jar")
                    )
                    src = tf.extractfile(m)
                    assert src is not None
                    with open(part, "wb") as out:
                        shutil.copyfileobj(src, out)
            part.replace(dst)
    return targets


def _paimon_libs(root: Path, version: str) -> list[Path]:
    """The Java Paimon jars of ``version`` (0.9: the bridge jar in ``root``; 1.4.2 and 2.0.0: Maven
    Central into ``root/<version>``)."""
    if version == "0.9":
        return [_fetch_paimon_jar(root)]
    return fetch_jars(root / version, MAVEN_JARS[version])


def _sources(version: str) -> list[Path]:
    """The driver's common sources plus the compat source of ``version``."""
    common = [p for p in JAVA_SRC.rglob("*.java") if "compat" not in p.relative_to(JAVA_SRC).parts]
    return sorted(common) + sorted((JAVA_SRC / "compat" / VERSIONS[version]).glob("*.java"))


def _source_digest(version: str) -> str:
    h = hashlib.sha256(version.encode() + b"\0")
    for p in _sources(version):
        h.update(str(p.relative_to(JAVA_SRC)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _compile(root: Path, lib_cp: str, digest: str, version: str) -> Path:
    jar = root / f"interop-driver-{digest}.jar"
    if jar.exists():
        return jar
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        classes = Path(tmp) / "classes"
        cmd = [
            _java_bin("javac"),
            "-nowarn",
            "-Xlint:none",
            "-XDsuppressNotes",
            "-encoding",
            "UTF-8",
            "-d",
            str(classes),
            "-cp",
            lib_cp,
            *map(str, _sources(version)),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise InteropError(f"javac failed:\n{proc.stdout}\n{proc.stderr}")
        part = Path(tmp) / "driver.jar"
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as zf:
            for f in sorted(classes.rglob("*.class")):
                zf.write(f, f.relative_to(classes).as_posix())
        part.replace(jar)
    # jars / CDS archives of other sources, once unused for a week: worktrees of other branches
    # share the cache and may still be running theirs
    week_ago = time.time() - 7 * 86400
    for old in root.glob("interop-driver-*"):
        try:
            if digest not in old.name and old.stat().st_mtime < week_ago:
                old.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
    return jar


def _jvm_flags() -> list[str]:
    # -Xlog: the JVM's own warnings (CDS, ...) go to stderr, never into the JSON on stdout
    flags = [
        *LEAN_JVM_FLAGS,
        "-Xlog:disable",
        "-Xlog:all=warning:stderr",
        "-Xlog:cds=error:stderr",
        "-Duser.timezone=UTC",
        "-Dfile.encoding=UTF-8",
    ]
    extra = os.environ.get(JAVA_OPTS_ENV, "").split()
    return flags + extra


def _warmup_requests(warehouse: str) -> list[dict]:
    table = "warm.t"
    return [
        {
            "op": "create_table",
            "warehouse": warehouse,
            "table": table,
            "schema": [
                {"name": "id", "type": "INT NOT NULL"},
                {"name": "v", "type": "STRING"},
                {"name": "d", "type": "DECIMAL(10, 2)"},
                {"name": "ts", "type": "TIMESTAMP(6)"},
            ],
            "primary_keys": ["id"],
            "options": {"bucket": "2"},
        },
        {
            "op": "write",
            "warehouse": warehouse,
            "table": table,
            "rows": [{"id": 1, "v": "a", "d": "1.50", "ts": "2024-01-01T00:00:00.000001"}],
        },
        {"op": "write", "warehouse": warehouse, "table": table, "rows": [{"id": 1, "v": "b"}]},
        {"op": "read", "warehouse": warehouse, "table": table},
        {"op": "compact", "warehouse": warehouse, "table": table, "full": True},
        {"op": "snapshots", "warehouse": warehouse, "table": table},
        {"op": "files", "warehouse": warehouse, "table": table},
        {"op": "schema", "warehouse": warehouse, "table": table},
        {"op": "bucket_of", "types": ["INT"], "rows": [[1]], "num_buckets": 4},
    ]


def _cds_archive(root: Path, cp: str, digest: str) -> Path | None:
    """The driver's class-data archive (cds.py), made by a warm-up batch; halves JVM start-up."""

    def warm_up(flags: list[str]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [_java_bin("java"), *_jvm_flags(), *flags, "-cp", cp, MAIN_CLASS]
            res = run_json_batch(cmd, _warmup_requests(str(Path(tmp) / "wh")), "java warm-up", 300)
            check_results("java warm-up", _warmup_requests(""), res)

    return cds.build(root / f"interop-driver-{digest}.jsa", warm_up)


def version_id(version: str) -> str:
    """``0.9`` -> ``java09``, ``1.4.2`` -> ``java14``, ``2.0.0`` -> ``java20`` (pytest ids: ``-k java14`` runs one lane)."""
    return "java" + "".join(version.split(".")[:2])


def _check_version(version: str) -> str:
    if version not in VERSIONS:
        raise InteropError(f"Java Paimon version {version!r}: the harness has {', '.join(VERSIONS)}")
    return version


def _prepare(cache_dir: str | os.PathLike[str] | None, version: str) -> tuple[str, Path | None]:
    """(classpath, CDS archive or None) of ``version``: its jars, the Hadoop jars and the driver
    compiled with its compat source; driver jar and archive are named by the source digest, which
    covers the version, so the two versions never share either."""
    root = cache_root(cache_dir) / "java"
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        libs = [*_paimon_libs(root, version), *_fetch_hadoop_jars(root)]
        lib_cp = os.pathsep.join(map(str, libs))
        digest = _source_digest(version)
        jar = _compile(root, lib_cp, digest, version)
        cp = os.pathsep.join([str(jar), lib_cp])
        jsa = _cds_archive(root, cp, digest)
    return cp, jsa


def ensure_java_classpath(
    cache_dir: str | os.PathLike[str] | None = None, version: str = DEFAULT_VERSION
) -> str:
    """Fetch Java Paimon ``version`` + Hadoop jars and compile the driver (once); return the full classpath."""
    return _prepare(cache_dir, _check_version(version))[0]


class JavaPaimon(BatchDriver):
    """Runs batches of requests through Java Paimon ``version`` (0.9, 1.4.2 or 2.0.0), in a JVM
    kept warm per pytest worker (class path and environment alike; see ``BatchDriver``).

    >>> JavaPaimon(version="1.4.2").run([{"op": "read", "warehouse": wh, "table": "db.t"}])[0]["rows"]
    """

    serves = True

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        timeout: float = 600.0,
        extra_classpath: list[str] | tuple[str, ...] = (),
        version: str = DEFAULT_VERSION,
    ):
        """``extra_classpath``: jars appended at run time (JDBC drivers, Hive's jars for the
        catalog tests); the driver is compiled without them."""
        super().__init__(cache_dir, timeout)
        self.version = _check_version(version)
        self.label = f"Java Paimon {version}"
        self._prepared: tuple[str, Path | None] | None = None
        self.extra_classpath = tuple(extra_classpath)

    @property
    def id(self) -> str:
        """The test id of this version: ``java09`` or ``java14``."""
        return version_id(self.version)

    def __repr__(self) -> str:
        return f"JavaPaimon(version={self.version!r})"

    def with_classpath(self, *entries: str) -> JavaPaimon:
        """The same driver with more jars on the classpath."""
        other = JavaPaimon(self.cache_dir, self.timeout, self.extra_classpath + entries, self.version)
        other._prepared = self._prepared
        return other

    def command(self) -> list[str]:
        if self._prepared is None:
            self._prepared = _prepare(self.cache_dir, self.version)
        cp, jsa = self._prepared
        flags = [*_jvm_flags(), *cds.use_flags(jsa)]
        if self.extra_classpath:
            cp = os.pathsep.join([cp, *self.extra_classpath])
        return [_java_bin("java"), *flags, "-cp", cp, MAIN_CLASS]

    def compact(self, warehouse: str, table: str, full: bool = True) -> dict[str, Any]:
        return self.call("compact", warehouse=str(warehouse), table=table, full=full)

    def files(self, warehouse: str, table: str, snapshot: int | None = None) -> list[dict[str, Any]]:
        return self.call("files", warehouse=str(warehouse), table=table, snapshot=snapshot)["files"]

    def bucket_of(self, types: list[str], rows: list[list[Any]], num_buckets: int) -> list[int]:
        return self.call("bucket_of", types=types, rows=rows, num_buckets=num_buckets)["buckets"]

    def system_table(self, warehouse: str, name: str) -> dict[str, Any]:
        """Java's rows of system table ``name`` (``db.t$snapshots``, ``sys.catalog_options``):
        ``{"columns": [[name, Java's type text]], "rows": [{column: canonical value}]}``."""
        return self.call("system_table", warehouse=str(warehouse), name=name)
