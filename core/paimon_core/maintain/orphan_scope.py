"""Where orphan cleanup looks: the only files ``remove-orphans`` may ever delete.

The scope is Java Paimon's (``OrphanFilesClean``), listed non-recursively, files only:

* **unused files** (deleted when no snapshot, tag or changelog uses their name, see
  :mod:`paimon_core.maintain.used_names`): the files directly in ``manifest/``, ``index/``,
  ``statistics/``, and in every ``bucket-*`` directory at the partition depth (``k=v/`` per
  partition key, ``bucket-*`` right in the table directory when it has none);
* **leftovers** (deleted whatever their name is used for): in the ``snapshot/`` directory of the
  table and of each branch, every file that is not ``snapshot-*``, ``EARLIEST`` or ``LATEST``,
  and in its ``changelog/`` directory every file that is not ``changelog-*`` or a hint, as Java
  does; and, beyond Java, the stale temporary files of an atomic write (``.<name>.<uuid>.tmp``)
  in ``schema/``, ``tag/`` and ``consumer/`` (nothing reads them).

Everything else is never listed, so never deleted: ``schema-*``, ``tag-*``, ``consumer-*``,
``changelog-*``, snapshot files and hints, files beside the bucket directories (``_SUCCESS`` of
a done partition: Java 0.9 deletes those, 1.x does not), subdirectories of the scanned
directories, unknown files and folders (an Iceberg ``metadata/`` folder), files outside the
table directory. Paimon 0.9 also deletes such subdirectories and partition-level files; later
releases stopped, and so do we.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.maintain.files import FileInfo, is_temp_name, list_dir
from paimon_core.paths import CHANGELOG_DIR, CHANGELOG_PREFIX

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.storage.file_io import FileIO

HINTS = ("EARLIEST", "LATEST")
UNUSED, LEFTOVER = "unused", "leftover"


@dataclass(frozen=True)
class Candidate:
    file: FileInfo
    rule: str  # UNUSED: an orphan unless its name is used; LEFTOVER: an orphan by where it is
    kind: str  # for the plan: data | changelog | manifest | manifest-list | index-manifest | index | statistics | temp | other


def _manifest_kind(name: str) -> str:
    if name.startswith("manifest-list"):
        return "manifest-list"
    return "index-manifest" if name.startswith("index-manifest") else "manifest"


def _bucket_kind(name: str) -> str:
    if name.startswith(CHANGELOG_PREFIX):
        return "changelog"
    return "index" if name.startswith("index-") else "data"


def bucket_dirs(io: FileIO, table_path: str, partition_depth: int) -> list[str]:
    """``bucket-*`` directories below ``partition_depth`` levels of ``k=v`` directories."""
    level = [table_path]
    for _ in range(partition_depth):
        level = [d for parent in level for d in list_dir(io, parent)[1] if "=" in d.rsplit("/", 1)[-1]]
    return [
        d
        for parent in level
        for d in list_dir(io, parent)[1]
        if d.rsplit("/", 1)[-1].startswith(paths.BUCKET_PREFIX)
    ]


def _unused(io, directory: str, kind) -> list[Candidate]:
    files = list_dir(io, directory)[0]
    return [Candidate(f, UNUSED, "temp" if is_temp_name(_name(f)) else kind(_name(f))) for f in files]


def _leftovers(io, directory: str, keep) -> list[Candidate]:
    out = []
    for f in list_dir(io, directory)[0]:
        name = _name(f)
        if not keep(name):
            out.append(Candidate(f, LEFTOVER, "temp" if is_temp_name(name) else "other"))
    return out


def _name(f: FileInfo) -> str:
    return f.path.rsplit("/", 1)[-1]


def candidates(table: TableContext, branch_roots: list[str]) -> list[Candidate]:
    """Every file in scope (see the module docstring). ``branch_roots``: the table directory
    and each branch's directory."""
    io, root = table.io, table.path
    out = _unused(io, io.join(root, paths.MANIFEST_DIR), _manifest_kind)
    out += _unused(io, io.join(root, paths.INDEX_DIR), lambda n: "index")
    out += _unused(io, io.join(root, paths.STATISTICS_DIR), lambda n: "statistics")
    for d in bucket_dirs(io, root, len(table.schema.partition_keys)):
        out += _unused(io, d, _bucket_kind)
    for b in branch_roots:
        out += _leftovers(
            io, io.join(b, paths.SNAPSHOT_DIR), lambda n: n.startswith(paths.SNAPSHOT_PREFIX) or n in HINTS
        )
        out += _leftovers(
            io, io.join(b, CHANGELOG_DIR), lambda n: n.startswith(CHANGELOG_PREFIX) or n in HINTS
        )
        for sub in (paths.SCHEMA_DIR, paths.TAG_DIR, paths.CONSUMER_DIR):
            out += _leftovers(io, io.join(b, sub), lambda n: not is_temp_name(n))
    return out


__all__ = ["LEFTOVER", "UNUSED", "Candidate", "bucket_dirs", "candidates"]
