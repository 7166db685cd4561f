"""Table options: one registry of Paimon's keys with type, default and a one-line doc.

Options are stored in the schema file as strings; ``CoreOptions`` reads them typed, falling
back to the registry default. Unknown keys are kept (Paimon ignores options it does not know).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paimon_core.errors import InvalidInput


@dataclass(frozen=True)
class Option:
    key: str
    kind: str  # int | bool | str | size | duration
    default: object
    doc: str


_REGISTRY = [
    Option("bucket", "int", -1, "buckets per partition: N>0 fixed, -1 dynamic (PK) or unaware (append)"),
    Option("bucket-key", "str", None, "comma-separated columns hashed to pick the bucket"),
    Option("file.format", "str", "parquet", "data file format (only parquet is written here)"),
    Option("file.compression", "str", "zstd", "data file compression"),
    Option("file.compression.zstd-level", "int", 1, "zstd level of data files"),
    Option("manifest.format", "str", "avro", "manifest format"),
    Option("manifest.compression", "str", "zstd", "manifest compression"),
    Option("manifest.target-file-size", "size", 8 * 1024 * 1024, "target size of merged manifests"),
    Option("manifest.merge-min-count", "int", 30, "merge manifests once there are this many small ones"),
    Option("target-file-size", "size", None, "roll data files at this size (128 MB PK, 256 MB append)"),
    Option("write-buffer-size", "size", 256 * 1024 * 1024, "in-memory sort buffer of PK writers"),
    Option("merge-engine", "str", "deduplicate", "deduplicate | partial-update | aggregation | first-row"),
    Option("changelog-producer", "str", "none", "none | input | lookup | full-compaction"),
    Option("sequence.field", "str", None, "fields that order records instead of arrival"),
    Option("partition.default-name", "str", "__DEFAULT_PARTITION__", "directory name of null partitions"),
    Option("partition.legacy-name", "bool", True, "render partition values the legacy way"),
    Option("metadata.stats-mode", "str", "truncate(16)", "value stats: none | counts | truncate(N) | full"),
    Option("data-file.prefix", "str", "data-", "prefix of data file names"),
    Option("changelog-file.prefix", "str", "changelog-", "prefix of changelog file names"),
    Option("commit.max-retries", "int", 10, "retries of a commit that lost a race"),
    Option("snapshot.num-retained.min", "int", 10, "snapshots always kept by expiry"),
    Option("snapshot.num-retained.max", "int", 2147483647, "snapshots kept at most"),
    Option("snapshot.time-retained", "duration", 3600_000, "keep snapshots younger than this"),
    Option("snapshot.expire.limit", "int", 50, "most snapshots expired per run"),
    Option("num-sorted-run.compaction-trigger", "int", 5, "sorted runs that trigger compaction"),
    Option("num-levels", "int", None, "LSM levels (default trigger + 1)"),
    Option("write-only", "bool", False, "skip compaction and expiry after writes"),
    Option("dynamic-bucket.target-row-num", "int", 2_000_000, "keys per bucket in dynamic mode"),
    # i11dv: deletion vectors
    Option("deletion-vectors.enabled", "bool", False, "mark deleted/superseded rows in deletion vectors"),
    Option("deletion-vectors.bitmap64", "bool", False, "write 64-bit (v2) deletion vectors"),
]
OPTIONS: dict[str, Option] = {o.key: o for o in _REGISTRY}

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3,
               "t": 1024**4, "tb": 1024**4, "bytes": 1}
_DUR_UNITS = {"ms": 1, "s": 1000, "sec": 1000, "min": 60_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
              "": 1, "millis": 1, "seconds": 1000, "minutes": 60_000, "hours": 3_600_000, "days": 86_400_000}


def parse_size(text: str) -> int:
    m = _SIZE.match(str(text))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise InvalidInput(f"bad size '{text}' (use e.g. 128mb, 64 MB, 1gb)")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


def parse_duration_ms(text: str) -> int:
    """'30m', '12h', '7d', '1 h', '500ms' -> milliseconds."""
    m = _SIZE.match(str(text))
    if not m or m.group(2).lower() not in _DUR_UNITS:
        raise InvalidInput(f"bad duration '{text}' (use e.g. 30m, 12h, 7d)")
    return int(float(m.group(1)) * _DUR_UNITS[m.group(2).lower()])


def _convert(opt: Option, raw: str):
    try:
        if opt.kind == "int":
            return int(raw)
        if opt.kind == "bool":
            if raw.lower() not in ("true", "false"):
                raise ValueError
            return raw.lower() == "true"
        if opt.kind == "size":
            return parse_size(raw)
        if opt.kind == "duration":
            return parse_duration_ms(raw)
    except (ValueError, InvalidInput):
        raise InvalidInput(f"option '{opt.key}' has a bad value '{raw}' (expected {opt.kind})") from None
    return raw


def validate_options(options: dict[str, str]) -> None:
    for k, v in options.items():
        if k in OPTIONS:
            _convert(OPTIONS[k], str(v))


class CoreOptions:
    """Typed view over a table's option strings."""

    def __init__(self, options: dict[str, str], primary_keys: tuple[str, ...] = ()):
        self.raw = dict(options)
        self.has_pk = bool(primary_keys)

    def get(self, key: str):
        opt = OPTIONS[key]
        if key in self.raw:
            return _convert(opt, str(self.raw[key]))
        return opt.default

    @property
    def bucket(self) -> int:
        return self.get("bucket")

    @property
    def bucket_key(self) -> list[str]:
        v = self.get("bucket-key")
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def target_file_size(self) -> int:
        v = self.get("target-file-size")
        if v is None:
            return (128 if self.has_pk else 256) * 1024 * 1024
        return v

    @property
    def file_format(self) -> str:
        return self.get("file.format").lower()

    @property
    def partition_default_name(self) -> str:
        return self.get("partition.default-name")

    @property
    def stats_mode(self) -> str:
        return self.get("metadata.stats-mode").lower()
