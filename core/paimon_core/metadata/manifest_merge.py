"""Merging a snapshot's data manifests, as Java's ``ManifestFileMerger`` does on every commit.

A commit's base manifest list is the latest snapshot's manifests (base, then delta) after this
merge, so the layout matches Java's for the same commits:

* full compaction, when the manifests after the leading run of large ADD-only ones
  (``file_size >= manifest.target-file-size``) total ``manifest.full-compaction-threshold-size``
  or more: the delta's entries are folded, base manifests untouched by its deletions are kept,
  the rest rewritten without the deleted files;
* otherwise minor compaction: consecutive manifests are folded once they total the target size,
  and the small tail once it has ``manifest.merge-min-count`` manifests.

Folding (Java's ``FileEntry.mergeEntries``) applies ADD/DELETE in order; a DELETE whose ADD is in
an earlier manifest outside the fold is kept. Invariant: the live files the result lists are
exactly those of the input. New manifest names go to ``written`` (the commit deletes them when it
gives up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.manifest import ADD, DELETE, SimpleStats

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.data.partition import PartitionCodec
    from paimon_core.metadata.manifest import ManifestEntry, ManifestFileMeta, ManifestStore


ROLL_CHECK = 1000  # Java's rolling writers compare the size with the target every 1000 records


@dataclass(frozen=True)
class MergeSettings:
    target_size: int  # manifest.target-file-size
    min_count: int  # manifest.merge-min-count
    full_threshold: int  # manifest.full-compaction-threshold-size


def partition_stats(codec: PartitionCodec, entries: list[ManifestEntry]) -> SimpleStats:
    """The ``_PARTITION_STATS`` of a manifest holding ``entries``."""
    if not codec.keys:
        return SimpleStats(codec.to_bytes(()), codec.to_bytes(()), ())
    values = [codec.from_bytes(e.partition) for e in entries]
    mins, maxs, nulls = [], [], []
    for i in range(len(codec.keys)):
        col = [v[i] for v in values if v[i] is not None]
        mins.append(min(col) if col else None)
        maxs.append(max(col) if col else None)
        nulls.append(len(values) - len(col))
    return SimpleStats(codec.to_bytes(mins), codec.to_bytes(maxs), tuple(nulls))


class ManifestMerger:
    def __init__(
        self,
        store: ManifestStore,
        codec: PartitionCodec,
        schema_id: int,
        settings: MergeSettings,
        written: list[str],
    ):
        self.store, self.codec, self.schema_id = store, codec, schema_id
        self.settings = settings
        self.written = written

    def merge(self, metas: list[ManifestFileMeta]) -> list[ManifestFileMeta]:
        full = self.full(metas, self.settings.full_threshold)
        return full if full is not None else self._minor(metas)

    # ---- minor
    def _minor(self, metas: list[ManifestFileMeta]) -> list[ManifestFileMeta]:
        result: list[ManifestFileMeta] = []
        candidates: list[ManifestFileMeta] = []
        total = 0
        for m in metas:
            total += m.file_size
            candidates.append(m)
            if total >= self.settings.target_size:
                result += self._fold_candidates(candidates)
                candidates, total = [], 0
        if len(candidates) >= self.settings.min_count:
            result += self._fold_candidates(candidates)
        else:
            result += candidates
        return result

    def _fold_candidates(self, candidates: list[ManifestFileMeta]) -> list[ManifestFileMeta]:
        if len(candidates) == 1:
            return list(candidates)
        folded = fold(self._entries(candidates))
        return self._write(list(folded.values()), bytes_per_entry(candidates)) if folded else []

    # ---- full
    def full(self, metas: list[ManifestFileMeta], threshold: int) -> list[ManifestFileMeta] | None:
        """The full compaction when the delta reaches ``threshold`` bytes, else None."""
        i = 0
        while (
            i < len(metas)
            and metas[i].num_deleted_files == 0
            and metas[i].file_size >= self.settings.target_size
        ):
            i += 1
        base, delta = metas[:i], metas[i:]
        if sum(m.file_size for m in delta) < threshold:
            return None
        delta_folded = fold(self._entries(delta))
        deleted = {k for k, e in delta_folded.items() if e.kind == DELETE}
        result: list[ManifestFileMeta] = []
        j = 0
        if self.codec.keys:
            parts = {delta_folded[k].partition for k in deleted}
            while j < len(base) and not self._may_hold(base[j], parts):
                result.append(base[j])
                j += 1
        kept: list[ManifestEntry] = []
        while j < len(base):
            entries = self.store.read_manifest(base[j].file_name)
            j += 1
            rest = [e for e in entries if e.identifier not in deleted]
            if len(rest) < len(entries):
                kept = rest
                break
            result.append(base[j - 1])
        for m in base[j:]:
            kept += [e for e in self.store.read_manifest(m.file_name) if e.identifier not in deleted]
        kept += [e for e in delta_folded.values() if e.kind == ADD]
        return result + (self._write(kept, bytes_per_entry(metas)) if kept else [])

    def _may_hold(self, meta: ManifestFileMeta, partitions: set[bytes]) -> bool:
        """Whether the manifest's partition range may hold one of ``partitions`` (field by field,
        as Java's multiple-partition predicate tests statistics)."""
        if not partitions:
            return False
        lo = self.codec.from_bytes(meta.partition_stats.min_values)
        hi = self.codec.from_bytes(meta.partition_stats.max_values)
        nulls = meta.partition_stats.null_counts
        values = [self.codec.from_bytes(p) for p in partitions]
        for i in range(len(self.codec.keys)):
            hit = False
            for v in values:
                if v[i] is None:
                    hit = hit or bool(nulls and nulls[i])
                elif lo[i] is not None and hi[i] is not None and lo[i] <= v[i] <= hi[i]:
                    hit = True
            if not hit:
                return False
        return True

    # ---- files
    def _entries(self, metas: Iterable[ManifestFileMeta]) -> Iterable[ManifestEntry]:
        for m in metas:
            yield from self.store.read_manifest(m.file_name)

    def _write(self, entries: list[ManifestEntry], per_entry: float) -> list[ManifestFileMeta]:
        """``entries`` in manifests rolled at about the target size of written (compressed)
        bytes, checked every ``ROLL_CHECK`` entries as Java's rolling writer checks its file's
        position; ``per_entry``: the written bytes an entry takes (``bytes_per_entry``)."""
        out, chunk = [], []
        for e in entries:
            chunk.append(e)
            if len(chunk) % ROLL_CHECK == 0 and len(chunk) * per_entry >= self.settings.target_size:
                out.append(self._write_one(chunk))
                chunk = []
        if chunk:
            out.append(self._write_one(chunk))
        return out

    def _write_one(self, entries: list[ManifestEntry]) -> ManifestFileMeta:
        meta = self.store.write_manifest(entries, self.schema_id, partition_stats(self.codec, entries))
        self.written.append(meta.file_name)
        return meta


def bytes_per_entry(metas: list[ManifestFileMeta]) -> float:
    """The written bytes an entry of ``metas`` takes on average (compressed, as they were
    written): a merged manifest rolled by this size reaches the target size on disk, so it is
    not folded again by the next commit's minor compaction (rolling by uncompressed size left
    merged manifests at an eighth of the target, and every commit rewrote them)."""
    entries = sum(m.num_added_files + m.num_deleted_files for m in metas)
    return sum(m.file_size for m in metas) / entries if entries else 250.0


def fold(entries: Iterable[ManifestEntry]) -> dict[tuple, ManifestEntry]:
    """ADD/DELETE applied in order (insertion-ordered); a DELETE of a file not added before is
    kept. Adding a file twice is corrupt metadata."""
    out: dict[tuple, ManifestEntry] = {}
    for e in entries:
        key = e.identifier
        if e.kind == ADD:
            if key in out:
                raise CorruptMetadata(f"manifests add data file {e.file.file_name} twice")
            out[key] = e
        elif key in out:
            del out[key]
        else:
            out[key] = e
    return out
