"""``CoreOptions``: the typed view over a table's option strings, the only way modules read
options (values parsed by the registry's ``Option``, Paimon's defaults when unset)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import FIELD_OPTIONS, OPTIONS, field_parts


class CoreOptions:
    """Typed view over a table's option strings: the only way modules read options."""

    def __init__(self, options: dict[str, str], primary_keys: tuple[str, ...] = ()):
        self.raw = dict(options)
        self.has_pk = bool(primary_keys)

    def get(self, key: str) -> Any:
        """The typed value of an implemented option (its Paimon default when unset); its type
        follows the option's ``kind`` (see ``Option.parse``)."""
        opt = OPTIONS[key]
        for k in (key, *opt.aliases):
            if k in self.raw:
                return opt.parse(self.raw[k])
        return opt.default

    def is_set(self, key: str) -> bool:
        return key in self.raw or any(a in self.raw for a in OPTIONS[key].aliases)

    def field(self, column: str, name: str) -> Any:
        """The typed value of ``fields.<column>.<name>`` (None when unset and without default)."""
        key = f"fields.{column}.{name}"
        raw = self.raw.get(key)
        return (
            FIELD_OPTIONS[name].default if raw is None else replace(FIELD_OPTIONS[name], key=key).parse(raw)
        )

    def fields_with(self, name: str) -> dict[str, str]:
        """column -> raw value of every ``fields.<column>.<name>`` option set."""
        out = {}
        for key, value in self.raw.items():
            parts = field_parts(key)
            if parts and parts[1] == name:
                out[parts[0]] = value
        return out

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
        return self.get("file.format")

    @property
    def partition_default_name(self) -> str:
        return self.get("partition.default-name")

    @property
    def stats_mode(self) -> str:
        return self.get("metadata.stats-mode").lower()

    @property
    def merge_engine(self) -> MergeEngineKind:
        return MergeEngineKind(self.get("merge-engine"))

    @property
    def changelog_producer(self) -> str:
        return self.get("changelog-producer")

    @property
    def sequence_fields(self) -> list[str]:
        v = self.get("sequence.field")
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def num_levels(self) -> int:
        n = self.get("num-levels")
        return n if n is not None else self.get("num-sorted-run.compaction-trigger") + 1
