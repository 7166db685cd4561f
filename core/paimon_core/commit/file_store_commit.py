"""Commits: CommitMessages from writers become one new snapshot, optimistically.

Protocol (docs/format.md section 11): read the latest snapshot S, write the delta manifest and the
base/delta manifest lists on top of S, then create ``snapshot-(S+1)`` only if absent. A writer
that loses the race removes its lists, re-reads and retries; deletions (overwrite, compaction)
are re-checked against the new latest snapshot, so a file is never deleted twice and rows
committed by others are never dropped.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.commit.checks import (
    check_bucket_counts,
    check_deletes,
    check_index_base,
    check_read_base,
    check_row_ids,
)
from paimon_core.errors import CommitConflict, CorruptMetadata, SchemaMismatch, SnapshotNotFound
from paimon_core.journal import InterruptedAfterCommit, record_commit
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.live_files import check_not_expired, data_manifests, live_entries
from paimon_core.metadata.manifest import (
    ADD,
    DELETE,
    ManifestEntry,
    ManifestFileMeta,
    SimpleStats,
)
from paimon_core.metadata.manifest_merge import ManifestMerger, MergeSettings, partition_stats
from paimon_core.metadata.row_ids import assign_row_ids, data_evolution, next_free_row_id, row_tracking
from paimon_core.metadata.snapshot import BATCH_COMMIT_IDENTIFIER, OPERATIONS, Snapshot, SnapshotExpired
from paimon_core.options.registry import (
    COMMIT_MAX_RETRIES,
    MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE,
    MANIFEST_MERGE_MIN_COUNT,
    MANIFEST_TARGET_FILE_SIZE,
)
from paimon_core.read.partition_spec import partition_matcher
from paimon_core.write import renumber

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.metadata.table_statistics import TableStatistics


@dataclass
class CommitOptions:
    overwrite: bool = False
    # partitions to replace, as a test on the partition tuple; None = the whole table
    overwrite_filter: Callable[[tuple], bool] | None = None
    # the one partition an overwrite replaces ({key: internal value}); messages of another
    # partition are refused before anything is committed (sets the filter)
    overwrite_partition: dict | None = None
    commit_user: str = field(default_factory=lambda: str(uuid.uuid4()))
    properties: dict | None = None
    # a streaming commit's increasing id (Paimon's commitIdentifier); with a stable commit_user a
    # commit whose identifier the user already committed is skipped (exactly-once on replay)
    commit_identifier: int = BATCH_COMMIT_IDENTIFIER
    # cross-partition upsert tables: the snapshot id (0: none) the write's global key index was
    # read from; new data files commit only while no data changed since (write/cross_partition.py)
    index_base: int | None = None
    # a write that read the table at this snapshot id (0: empty) and replaces what it read (a
    # rescale): it commits only while no APPEND or OVERWRITE followed, which it would overwrite
    # unseen (Java's commit.strict-mode.last-safe-snapshot); compactions may follow
    read_base: int | None = None
    # rewrite the data manifests in full (Java's compactManifest): a COMPACT snapshot with an
    # empty delta and no new files; none when the manifests are already compact
    compact_manifests: bool = False
    # an ANALYZE commit (Java's commitStatistics): this statistics file is written (once, before
    # the first attempt) and the new snapshot names it; no data changes
    statistics: TableStatistics | None = None
    # the snapshot's ``operation`` (Java 2.0's Snapshot.Operation, one of OPERATIONS): TRUNCATE,
    # DELETE, MERGE; None for plain writes, overwrites and maintenance, as Java's core writes them
    operation: str | None = None

    def __post_init__(self) -> None:
        if self.operation is not None and self.operation not in OPERATIONS:
            raise ValueError(f"unknown snapshot operation {self.operation!r}: one of {', '.join(OPERATIONS)}")


def _now_ms() -> int:
    from paimon_core.clock import now_ms

    return now_ms()


def retry_wait(attempt: int) -> float:
    """Seconds before retry ``attempt + 1`` of a lost commit: 10 ms doubled per attempt up to 1 s,
    plus up to 20% at random, as Java's RetryWaiter (writers that lost together do not retry in
    step)."""
    wait = min(0.01 * (2**attempt), 1.0)
    return wait + random.uniform(0.0, wait * 0.2)


def commit_kind(
    overwrite: bool,
    adds: list[ManifestEntry],
    deletes: list[ManifestEntry],
    messages: Iterable[CommitMessage],
) -> str:
    """What a commit is, as Java names it: OVERWRITE (an overwrite, or new files that replace
    others), COMPACT (files replaced by files, or index-only changes such as deletion vectors, as
    Java files them), else APPEND."""
    if overwrite or deletes and any(m.new_files for m in messages):
        return "OVERWRITE"
    return "COMPACT" if deletes or not adds else "APPEND"


def latest_commit_of(
    table: TableContext, commit_user: str, latest: Snapshot | None = None
) -> Snapshot | None:
    """The newest retained snapshot committed by ``commit_user`` (Java's latestSnapshotOfUser),
    searching back from ``latest``; None if no retained snapshot is theirs."""
    sm = table.snapshots
    latest = latest if latest is not None else sm.latest()
    if latest is None:
        return None
    earliest = sm.earliest_id() or 1
    sid = latest.id
    while sid >= earliest:
        try:
            snap = latest if sid == latest.id else sm.snapshot(sid)
        except SnapshotNotFound:  # expired while we looked
            return None
        if snap.commit_user == commit_user:
            return snap
        sid -= 1
    return None


class FileStoreCommit:
    def __init__(self, table: TableContext, options: CommitOptions | None = None):
        self.table = table
        self.options = options or CommitOptions()
        self._stats_file: str | None = None  # this commit's statistics file, once written

    # ---- entries
    def _entries(self, messages: list[CommitMessage]) -> tuple[list[ManifestEntry], list[ManifestEntry]]:
        codec = self.table.partition_codec
        adds, deletes = [], []
        for m in messages:
            pb = codec.to_bytes(m.partition)
            for f in m.new_files:
                adds.append(ManifestEntry(ADD, pb, m.bucket, m.total_buckets, f))
            for f in m.compact_before:
                deletes.append(ManifestEntry(DELETE, pb, m.bucket, m.total_buckets, f))
            for f in m.compact_after:
                adds.append(ManifestEntry(ADD, pb, m.bucket, m.total_buckets, f))
        return adds, deletes

    def _changelog_entries(self, messages: list[CommitMessage]) -> list[ManifestEntry]:
        codec = self.table.partition_codec
        return [
            ManifestEntry(ADD, codec.to_bytes(m.partition), m.bucket, m.total_buckets, f)
            for m in messages
            for f in m.changelog_files
        ]

    def _overwrite_deletes(self, latest: Snapshot | None) -> list[ManifestEntry]:
        codec = self.table.partition_codec
        pred = self.options.overwrite_filter
        out = []
        for e in live_entries(self.table.manifests, latest):
            if pred is not None and not pred(codec.from_bytes(e.partition)):
                continue
            out.append(ManifestEntry(DELETE, e.partition, e.bucket, e.total_buckets, e.file))
        return out

    def _partition_stats(self, entries: list[ManifestEntry]) -> SimpleStats:
        return partition_stats(self.table.partition_codec, entries)

    def _partition_only(self, messages: list[CommitMessage]) -> Callable[[tuple], bool]:
        """The test for ``overwrite_partition``; refuses messages of any other partition."""
        spec = self.options.overwrite_partition or {}
        match = partition_matcher(self.table, spec)
        stray = [m.partition for m in messages if not match(m.partition)]
        if stray:
            codec = self.table.partition_codec
            raise SchemaMismatch(
                f"overwrite of partition {codec.display(spec)}: the input has rows of "
                f"partition {codec.display(codec.spec(stray[0]))}; nothing was written"
            ).with_hint(
                "overwrite_partition", spec=codec.display(spec), stray=codec.display(codec.spec(stray[0]))
            )
        return match

    # ---- commit
    def commit(self, messages: list[CommitMessage], kind: str | None = None) -> Snapshot | None:
        """Make ``messages`` one snapshot, or leave no trace of them: the one commit-or-abort that
        every writer goes through, so that no caller cleans up after a commit by hand.

        Returns the snapshot when it landed; the messages' files are then in it. When no snapshot
        landed (nothing to commit, an identifier ``commit_user`` already committed, or any failure
        before ``snapshot-N`` was created: a conflict, a refused write, Ctrl-C), every new file the
        messages name is deleted before this returns None or raises. A failure after the create
        (Ctrl-C raises ``InterruptedAfterCommit``) keeps every file: the snapshot stands. A writer
        that loses the race for ``snapshot-N`` deletes its manifests and retries on the new latest
        snapshot, up to ``commit.max-retries`` times."""
        landed: list[Snapshot] = []
        self._stats_file = None
        self._messages = list(messages)  # renumbered files replace the messages' (write/renumber.py)
        try:
            snap = self._commit(messages, kind, landed)
        except BaseException:
            if not landed:
                discard_files(self.table, self._messages)
                self._discard_statistics()
            raise
        if snap is None:
            discard_files(self.table, self._messages)
            self._discard_statistics()
        return snap

    def _discard_statistics(self) -> None:
        """The statistics file of an ANALYZE commit that did not land (no snapshot names it)."""
        if self._stats_file is not None:
            _delete_quietly(self.table, paths.statistics_file(self.table.path, self._stats_file))
            self._stats_file = None

    def abort(self, messages: list[CommitMessage]) -> None:
        """For a caller told that a commit failed without knowing how far it got (Spark calls a
        writer's abort after a failed commit): deletes the messages' files unless ``commit_user``
        already committed ``commit_identifier``, in which case the snapshot stands."""
        mine = latest_commit_of(self.table, self.options.commit_user)
        if mine is None or mine.commit_identifier < self.options.commit_identifier:
            discard_files(self.table, messages)

    def _commit(self, messages: list[CommitMessage], kind: str | None, landed: list) -> Snapshot | None:
        from paimon_core.metadata.features import check_writable

        self.table.require_writable()
        check_writable(self.table.schema, compaction=kind == "COMPACT")
        if self.options.overwrite and self.options.overwrite_partition is not None:
            self.options = replace(self.options, overwrite_filter=self._partition_only(messages))
        adds, deletes = self._entries(messages)
        changelog = self._changelog_entries(messages)
        index_only = any(m.new_index or m.deleted_index for m in messages)
        if self.options.statistics is not None:
            from paimon_core.metadata.table_statistics import write_statistics

            if adds or deletes or changelog or index_only or self.options.overwrite:
                raise ValueError("an ANALYZE commit changes no data")
            self._stats_file = write_statistics(self.table.io, self.table.path, self.options.statistics)
            kind = "ANALYZE"
        elif not adds and not deletes and not self.options.overwrite and not index_only:
            if not self.options.compact_manifests:
                return None
            kind = "COMPACT"
        kind = kind or commit_kind(self.options.overwrite, adds, deletes, messages)
        renumbers = renumber.applies(self.table, kind, self.options.overwrite)
        retries = self.table.schema.core_options.get(COMMIT_MAX_RETRIES)
        for attempt in range(retries + 1):
            latest = self.table.snapshots.latest()
            if self._replayed(latest):
                return None  # committed before (a replay after a restart): never twice
            if renumbers:  # the last commit wins every key it shares with a concurrent one
                messages, replaced = renumber.renumber_above(self.table, messages, latest)
                if replaced:
                    self._messages = list(messages)
                    adds, deletes = self._entries(messages)
                    changelog = self._changelog_entries(messages)
            written: list[str] = []
            rebased: list = []  # hash index files written to rebase this attempt's index changes
            snap = None
            try:
                snap = self._new_snapshot(latest, adds, deletes, changelog, messages, kind, written, rebased)
                if snap is None:  # manifests already compact: nothing to commit
                    self._cleanup(written, rebased)
                    return None
                if self._publish(snap, messages, rebased, landed):
                    return snap
            except (SnapshotExpired, CorruptMetadata) as e:
                self._cleanup(written, rebased)
                self._raise_unless_lost_race(e, latest)
            except BaseException as e:
                if snap is not None and (landed or self._created(snap)):
                    landed.append(snap)
                    return self._kept_after_interruption(e, snap, messages, rebased)
                self._cleanup(written, rebased)
                raise
            self._cleanup(written, rebased)
            time.sleep(retry_wait(attempt))
        raise CommitConflict(f"gave up committing after {retries + 1} attempts: other writers kept winning")

    def _replayed(self, latest: Snapshot | None) -> bool:
        """Whether ``commit_user`` already committed this ``commit_identifier`` (or a later one)."""
        ident = self.options.commit_identifier
        if ident == BATCH_COMMIT_IDENTIFIER:
            return False
        mine = latest_commit_of(self.table, self.options.commit_user, latest)
        return mine is not None and mine.commit_identifier >= ident

    def _new_snapshot(
        self,
        latest: Snapshot | None,
        adds,
        deletes,
        changelog,
        messages,
        kind: str,
        written: list[str],
        rebased: list,
    ) -> Snapshot | None:
        """Write this attempt's manifests, manifest lists and index manifest on top of ``latest``
        (their names go to ``written``) and return the snapshot that names them."""
        from paimon_core.metadata.index_manifest import IndexStore, check_writable_index

        index_store = IndexStore(
            self.table.io, self.table.path, self.table.manifests.format, self.table.manifests.compression
        )
        if latest is not None and latest.index_manifest:  # before any file of this attempt is written
            check_writable_index(
                index_store.read_manifest(latest.index_manifest),
                f"table {self.table.identifier}",
                adds,
                deletes,
                compact=kind == "COMPACT" and not self.options.overwrite,
                fields=self.table.schema.fields,
                removes=self.options.overwrite or any(m.new_index or m.deleted_index for m in messages),
            )
        store = self.table.manifests
        entries = list(deletes)
        if self.options.overwrite:
            entries = self._overwrite_deletes(latest)
        else:
            check_deletes(self.table, latest, deletes)
        check_index_base(self.table, self.options.index_base, latest, messages)
        check_read_base(self.table, self.options.read_base, latest)
        if not self.options.overwrite:
            check_bucket_counts(self.table, latest, adds)
        next_row_id = latest.next_row_id if latest is not None else None
        if row_tracking(self.table.schema):  # ids given on each attempt, from the latest snapshot
            live = live_entries(self.table.manifests, latest)
            if data_evolution(self.table.schema) and not self.options.overwrite:
                check_row_ids(self.table, live, adds, deletes, kind, next_row_id or 0)
            start = next_free_row_id(latest, live)
            adds, next_row_id = assign_row_ids(adds, start, (latest.id + 1) if latest else 1)
        entries += adds
        delta_metas = []
        if entries:
            meta = store.write_manifest(entries, self.table.schema.id, self._partition_stats(entries))
            written.append(meta.file_name)
            delta_metas.append(meta)
        base_metas = self._base_metas(latest, written)
        if base_metas is None:
            return None
        base_name, base_size = store.write_list(base_metas)
        written.append(base_name)
        delta_name, delta_size = store.write_list(delta_metas)
        written.append(delta_name)
        cl_name = cl_size = None
        if changelog:
            cmeta = store.write_manifest(changelog, self.table.schema.id, self._partition_stats(changelog))
            written.append(cmeta.file_name)
            cl_name, cl_size = store.write_list([cmeta])
            written.append(cl_name)
        delta_rows = sum(e.file.row_count for e in entries if e.kind == ADD) - sum(
            e.file.row_count for e in entries if e.kind == DELETE
        )
        return Snapshot(
            id=(latest.id + 1) if latest else 1,
            schema_id=self.table.schema.id,
            base_manifest_list=base_name,
            delta_manifest_list=delta_name,
            base_manifest_list_size=base_size,
            delta_manifest_list_size=delta_size,
            changelog_manifest_list=cl_name,
            changelog_manifest_list_size=cl_size,
            changelog_record_count=sum(e.file.row_count for e in changelog) if changelog else 0,
            index_manifest=self._index_manifest(latest, messages, written, rebased, index_store, entries),
            commit_user=self.options.commit_user,
            commit_identifier=self.options.commit_identifier,
            commit_kind=kind,
            time_millis=max(_now_ms(), (latest.time_millis if latest else 0)),
            total_record_count=(latest.total_record_count if latest else 0) + delta_rows,
            delta_record_count=delta_rows,
            watermark=latest.watermark if latest else None,
            properties=self.options.properties,
            uuid=str(uuid.uuid4()),
            next_row_id=next_row_id,
            statistics=self._stats_file or self._inherited_statistics(latest),
            operation=self.options.operation,
        )

    def _inherited_statistics(self, latest: Snapshot | None) -> str | None:
        from paimon_core.metadata.table_statistics import inherited

        if latest is None or not latest.statistics:
            return None
        return inherited(self.table.io, self.table.path, latest.statistics, self.table.schema.id)

    def _publish(self, snap: Snapshot, messages, rebased: list, landed: list) -> bool:
        """Create ``snapshot-N`` if absent (under the catalog's lock); False when another writer got N.
        ``landed`` gets the snapshot as soon as it exists, before anything else can fail."""
        with self.table.env.lock():
            committed = self.table.env.commit_snapshot(self.table, snap)
        if committed:
            landed.append(snap)
            record_commit(self.table.path, snap.id)
            if rebased:
                self._drop_superseded_index(messages)
            self.table.env.after_commit(self.table, snap, messages)
        return committed

    def _raise_unless_lost_race(self, error: Exception, latest: Snapshot | None) -> None:
        """A metadata file of ``latest`` went missing while we built on it: a lost race when another
        process expired ``latest`` (newer snapshots exist; retry on the new latest), else damage."""
        if latest is None:
            raise error
        if not isinstance(error, SnapshotExpired):
            try:
                check_not_expired(self.table.manifests, latest, error)
            except SnapshotExpired:
                return
            raise error

    def _kept_after_interruption(
        self, error: BaseException, snap: Snapshot, messages, rebased: list
    ) -> Snapshot:
        """``snapshot-N`` was created before ``error`` (an interrupt or a failure after the create):
        the commit stands, and deleting the manifests it names would break the table."""
        record_commit(self.table.path, snap.id)
        if isinstance(error, InterruptedAfterCommit):
            raise error
        if isinstance(error, KeyboardInterrupt):
            raise InterruptedAfterCommit(self.table.path, snap.id) from error
        if not isinstance(error, Exception):
            raise error
        if rebased:
            self._drop_superseded_index(messages)
        return snap

    def _created(self, snap: Snapshot) -> bool:
        """Whether snapshot-N on storage is ``snap`` (this commit made it)."""
        try:
            return self.table.snapshots.holds(snap)
        except Exception:  # noqa: BLE001 - unreadable: not ours
            return False

    def _index_manifest(
        self, latest: Snapshot | None, messages, written: list[str], rebased: list, store, data_changes
    ) -> str | None:
        """The complete index manifest after this commit (the previous one if unchanged). When
        another writer changed the hash index of a partition this commit also changed (a lost
        race), this commit's index changes are rebased onto the live index (``index_rebase``).
        Primary-key index payloads that ``data_changes`` make untrue are dropped (``pk_index``)."""
        from paimon_core.metadata.pk_index import stale_payloads

        added = [e for m in messages for e in m.new_index]
        deleted = [e for m in messages for e in m.deleted_index]
        base_name = latest.index_manifest if latest else None
        stale = stale_payloads(store.read_manifest(base_name), data_changes) if base_name else []
        if not added and not deleted and not stale and not (self.options.overwrite and base_name):
            return base_name
        live = {e.identifier: e for e in store.read_manifest(base_name)}
        if self.options.overwrite:  # the overwritten partitions' deletion vectors go with their files
            deleted += self._overwritten_vectors(live.values(), deleted)
            if not added and not deleted and not stale:
                return base_name
        gone = [d for d in deleted if d.identifier not in live]
        replaced = {(d.partition, d.bucket) for d in deleted}
        clash = [
            a
            for a in added
            if any(
                (e.partition, e.bucket, e.index_type) == (a.partition, a.bucket, a.index_type)
                and (e.partition, e.bucket) not in replaced
                for e in live.values()
            )
        ]
        if gone or clash:
            from paimon_core.metadata.index_manifest import HASH_INDEX
            from paimon_core.write.index_rebase import rebase_hash_index

            if any(e.index_type != HASH_INDEX for e in gone + clash):
                raise CommitConflict(
                    "another writer changed the deletion vectors of the same bucket at the same "
                    "time; nothing was committed, run the write again"
                )
            others = (
                [a for a in added if a.index_type != HASH_INDEX],
                [d for d in deleted if d.index_type != HASH_INDEX],
            )
            added, deleted = rebase_hash_index(
                store, list(live.values()), [a for a in added if a.index_type == HASH_INDEX], rebased
            )
            added, deleted = added + others[0], deleted + others[1]
        for d in deleted + stale:
            live.pop(d.identifier, None)
        for a in added:
            live[a.identifier] = a
        name = store.write_manifest(list(live.values()))
        written.append(name)
        return name

    def _overwritten_vectors(self, live, deleted) -> list:
        from paimon_core.metadata.deletion_vectors import DELETION_VECTORS_INDEX

        codec = self.table.partition_codec
        pred = self.options.overwrite_filter
        already = {d.identifier for d in deleted}
        return [
            e.as_delete()
            for e in live
            if e.index_type == DELETION_VECTORS_INDEX
            and e.identifier not in already
            and (pred is None or pred(codec.from_bytes(e.partition)))
        ]

    def _cleanup(self, names: list[str], index_files: list | None = None) -> None:
        for n in names:
            self.table.io.delete(self.table.manifests.path(n))
        if index_files:
            from paimon_core.metadata.index_manifest import IndexStore

            store = IndexStore(self.table.io, self.table.path)
            for e in index_files:
                store.delete_file(e)
            index_files.clear()

    def _drop_superseded_index(self, messages) -> None:
        """After a rebased commit: the writer's own index files were replaced by rebased ones."""
        from paimon_core.metadata.index_manifest import IndexStore

        store = IndexStore(self.table.io, self.table.path)
        for m in messages:
            for e in m.new_index:
                store.delete_file(e)

    def _base_metas(self, latest: Snapshot | None, written: list[str]) -> list[ManifestFileMeta] | None:
        """All data manifests of ``latest``, merged as Java's writers merge them (``manifest_merge``);
        with ``compact_manifests``, merged in full, or None when that changes nothing."""
        if latest is None:
            return None if self.options.compact_manifests else []
        store = self.table.manifests
        metas = data_manifests(store, latest)
        if self.options.compact_manifests and (
            not metas or (len(metas) == 1 and not metas[0].num_deleted_files)
        ):
            return None  # one manifest of live files is as compact as it gets (Java would rewrite it)
        opts = self.table.schema.core_options
        settings = MergeSettings(
            opts.get(MANIFEST_TARGET_FILE_SIZE),
            1 if self.options.compact_manifests else opts.get(MANIFEST_MERGE_MIN_COUNT),
            1 if self.options.compact_manifests else opts.get(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE),
        )
        merger = ManifestMerger(store, self.table.partition_codec, self.table.schema.id, settings, written)
        merged = merger.merge(metas)
        if self.options.compact_manifests and [m.file_name for m in merged] == [m.file_name for m in metas]:
            return None
        return merged


def discard_files(table: TableContext, messages: list[CommitMessage]) -> None:
    """Delete the new files of ``messages``, which no snapshot names: data, compaction output,
    changelog and index files. A file a message also lists as replaced (a level upgrade keeps the
    same file) is kept. Best effort: a file that cannot be deleted is left to ``remove-orphans``."""
    for m in messages:
        d = table.bucket_path(m.partition, m.bucket)
        kept = {f.file_name for f in m.compact_before}
        for f in m.new_files + m.compact_after + m.changelog_files:
            if f.file_name not in kept:
                _delete_quietly(table, table.io.join(d, f.file_name))
        for e in m.new_index:
            _delete_quietly(table, paths.index_file(table.path, e.file_name))


def _delete_quietly(table: TableContext, path: str) -> None:
    try:
        table.io.delete(path)
    except Exception:  # noqa: BLE001 - an orphan left for remove-orphans, never a lost row
        pass
