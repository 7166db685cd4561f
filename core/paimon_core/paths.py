"""Where everything of a table lives: every directory and file-name rule of the layout, in one place.

A table directory holds ``schema/schema-N``, ``snapshot/snapshot-N`` (+ ``LATEST``/``EARLIEST``
hints), ``changelog/changelog-N`` (the same, for changelogs kept longer than their snapshots),
``tag/tag-NAME``, ``consumer/consumer-ID``, ``manifest/`` (manifest files, manifest lists and
index manifests), ``index/`` (hash and deletion-vector index files), ``statistics/``, and per
partition directory (``k=v/...``, see ``paimon_core.data.partition``) one ``bucket-N`` directory of
data and changelog files. Pure string functions: no IO and no pyarrow, so anything can import it.
"""

from __future__ import annotations

from paimon_core.options.bucket_mode import POSTPONE_BUCKET

SCHEMA_DIR, SCHEMA_PREFIX = "schema", "schema-"
SNAPSHOT_DIR, SNAPSHOT_PREFIX = "snapshot", "snapshot-"
TAG_DIR, TAG_PREFIX = "tag", "tag-"
CONSUMER_DIR, CONSUMER_PREFIX = "consumer", "consumer-"
CHANGELOG_DIR, CHANGELOG_PREFIX = "changelog", "changelog-"  # long-lived changelogs (metadata/changelog.py)
MANIFEST_DIR = "manifest"
INDEX_DIR = "index"
STATISTICS_DIR = "statistics"
BRANCH_DIR = "branch"
BUCKET_PREFIX = "bucket-"
# Directories of table metadata other than manifests and index files (orphan cleaning skips them).
METADATA_DIRS = (SCHEMA_DIR, SNAPSHOT_DIR, TAG_DIR, CONSUMER_DIR, BRANCH_DIR, STATISTICS_DIR)


def join(*parts: str) -> str:
    """Join path parts with single slashes (keeps a leading slash and a ``scheme://`` prefix)."""
    return "/".join([p.rstrip("/") for p in parts[:1]] + [p.strip("/") for p in parts[1:]])


def schema_file(table_path: str, schema_id: int) -> str:
    return join(table_path, SCHEMA_DIR, f"{SCHEMA_PREFIX}{schema_id}")


def snapshot_file(table_path: str, snapshot_id: int) -> str:
    return join(table_path, SNAPSHOT_DIR, f"{SNAPSHOT_PREFIX}{snapshot_id}")


def tag_file(table_path: str, name: str) -> str:
    return join(table_path, TAG_DIR, f"{TAG_PREFIX}{name}")


def manifest_file(table_path: str, name: str) -> str:
    """Manifest files, manifest lists and index manifests all live in ``manifest/``."""
    return join(table_path, MANIFEST_DIR, name)


def index_file(table_path: str, name: str) -> str:
    return join(table_path, INDEX_DIR, name)


def statistics_file(table_path: str, name: str) -> str:
    return join(table_path, STATISTICS_DIR, name)


def bucket_dir(table_path: str, partition_dir: str, bucket: int) -> str:
    """``partition_dir`` is the relative ``k=v/...`` path ('' for unpartitioned tables); bucket -2 is
    the ``bucket-postpone`` directory."""
    name = "postpone" if bucket == POSTPONE_BUCKET else bucket
    parts = [table_path] + ([partition_dir] if partition_dir else []) + [f"{BUCKET_PREFIX}{name}"]
    return join(*parts)


def table_of_manifest_dir(manifest_dir: str) -> str:
    """The table directory that holds a ``manifest/`` directory."""
    return manifest_dir.rstrip("/").rsplit("/", 1)[0]
