"""``CoreOptions``: the typed view over a table's option strings, the only way modules read
options (values parsed by the registry's ``Option``, Paimon's defaults when unset)."""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import (
    BUCKET,
    BUCKET_KEY,
    CHANGELOG_PRODUCER,
    FILE_FORMAT,
    MERGE_ENGINE,
    METADATA_STATS_MODE,
    NUM_LEVELS,
    NUM_SORTED_RUN_COMPACTION_TRIGGER,
    PARTITION_DEFAULT_NAME,
    SEQUENCE_FIELD,
    TARGET_FILE_SIZE,
    Option,
    field_parts,
)
from paimon_core.options.view import OptionView

T = TypeVar("T")


class CoreOptions(OptionView):
    """Typed view over a table's option strings: the only way modules read options."""

    def __init__(self, options: dict[str, str], primary_keys: tuple[str, ...] = ()):
        super().__init__(options)
        self.has_pk = bool(primary_keys)

    def field(self, column: str, option: Option[T]) -> T:
        """The typed value of the per-column option ``fields.<column>.<option.key>`` (one of
        ``registry.FIELD_OPTIONS``; its default when unset)."""
        key = f"fields.{column}.{option.key}"
        raw = self.raw.get(key)
        return option.default if raw is None else replace(option, key=key).parse(raw)

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
        return self.get(BUCKET)

    @property
    def bucket_key(self) -> list[str]:
        v = self.get(BUCKET_KEY)
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def target_file_size(self) -> int:
        v = self.get(TARGET_FILE_SIZE)
        if v is None:
            return (128 if self.has_pk else 256) * 1024 * 1024
        return v

    @property
    def file_format(self) -> str:
        return self.get(FILE_FORMAT)

    @property
    def partition_default_name(self) -> str:
        return self.get(PARTITION_DEFAULT_NAME)

    @property
    def stats_mode(self) -> str:
        return self.get(METADATA_STATS_MODE).lower()

    @property
    def merge_engine(self) -> MergeEngineKind:
        return MergeEngineKind(self.get(MERGE_ENGINE))

    @property
    def changelog_producer(self) -> str:
        return self.get(CHANGELOG_PRODUCER)

    @property
    def sequence_fields(self) -> list[str]:
        v = self.get(SEQUENCE_FIELD)
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def num_levels(self) -> int:
        n = self.get(NUM_LEVELS)
        return n if n is not None else self.get(NUM_SORTED_RUN_COMPACTION_TRIGGER) + 1
