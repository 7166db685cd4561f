"""Class-data archives (dynamic AppCDS, JDK 13+) for the JVMs the tests start.

A JVM run once with ``-XX:ArchiveClassesAtExit=F`` that exits normally leaves in F every class it
loaded, parsed and verified. A later JVM of the same java build with the same class path maps F
instead of loading those classes again: a Spark session with its first job starts in half the
time here. Invariants: an archive is only ever renamed into place whole (a crashed warm-up
leaves none), it is named by the java build and the class path it was made for, and a JVM given
an archive it cannot use (another java, another class path) starts as before, silently.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from ._common import cache_root, file_lock

NO_CDS_ENV = "PAIMON_CLI_NO_CDS"  # set: no archive is made or used (to measure without them)
# the JVM's CDS notes (a refused archive, signed jars skipped while dumping) print on stdout
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")


def java_home_of(java: str) -> Path:
    """The JDK folder of a ``java`` binary (a PATH entry may be a chain of links)."""
    return Path(os.path.realpath(java)).parent.parent


def java_on_path(env: dict[str, str] | None = None) -> str:
    """The ``java`` a launcher script picks: $JAVA_HOME/bin/java, else the one on PATH."""
    env = os.environ if env is None else env
    home = env.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java", path=env.get("PATH")) or "java"


def archive_path(name: str, java: str, class_path: Iterable[str | os.PathLike[str]]) -> Path:
    """Where the archive of JVM kind ``name`` for this java and class path lives; each jar counts
    by path, size and modification time, the java by its JDK's ``release`` file and ``libjvm``."""
    h = hashlib.sha256()
    home = java_home_of(java)
    for p in [home / "release", *sorted(home.glob("lib/server/libjvm.so")), *map(Path, class_path)]:
        try:
            st = p.stat()
            h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        except OSError:
            h.update(f"{p}:missing\n".encode())
    return cache_root() / "cds" / f"{name}-{h.hexdigest()[:16]}.jsa"


def use_flags(jsa: Path | None) -> list[str]:
    """JVM flags that map ``jsa`` when it exists (none otherwise)."""
    if jsa is None or os.environ.get(NO_CDS_ENV) or not jsa.exists():
        return []
    return [f"-XX:SharedArchiveFile={jsa}", "-Xshare:auto", *QUIET]


def build(jsa: Path, warm_up: Callable[[list[str]], None], prune: bool = False) -> Path | None:
    """Make ``jsa`` once (file-locked across processes): ``warm_up(flags)`` must start a JVM with
    ``flags`` added, give it typical work, and end it normally. A failed warm-up is remembered
    beside the archive (``.failed``) and the JVMs run without one; None then. ``prune``: older
    archives of the same kind (the name before the digest) go, but for the newest two."""
    if os.environ.get(NO_CDS_ENV):
        return None
    jsa.parent.mkdir(parents=True, exist_ok=True)
    failed = jsa.with_suffix(".failed")
    with file_lock(jsa.with_suffix(".lock")):
        if jsa.exists():
            return jsa
        if failed.exists():
            return None
        with tempfile.TemporaryDirectory(dir=jsa.parent) as tmp:
            part = Path(tmp) / "warm-up.jsa"
            try:
                warm_up([f"-XX:ArchiveClassesAtExit={part}", *QUIET])
            except Exception as e:  # noqa: BLE001 - best effort: the tests run without an archive
                failed.write_text(f"warm-up failed: {e}")
                return None
            if not part.exists():
                failed.write_text("the warm-up JVM left no archive (it did not exit normally)")
                return None
            part.replace(jsa)
        if prune:
            _prune(jsa)
    return jsa


def _prune(jsa: Path, keep: int = 2) -> None:
    """Delete all but the ``keep`` newest archives of ``jsa``'s kind: a fresh checkout's venv has
    its own jar paths, so each one makes an archive (Spark's: 170 MB). A JVM that maps a deleted
    archive keeps it until it exits."""
    kind = jsa.name.rsplit("-", 1)[0]
    archives = sorted(jsa.parent.glob(f"{kind}-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in archives[keep:]:
        for leftover in (old, old.with_suffix(".lock"), old.with_suffix(".failed")):
            leftover.unlink(missing_ok=True)
