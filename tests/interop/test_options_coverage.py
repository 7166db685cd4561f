"""Every table option is accounted for: ``test_every_option_is_covered`` fails when
core/paimon_core/options/registry.py gains an option that neither the option interop modules
(tests/interop/test_options_*_interop.py), another named test file, nor a stated reason ("no
observable effect") accounts for."""

from __future__ import annotations

import os

from paimon_core.options.registry import FIELD_OPTIONS, OPTIONS

# options tested by the option interop modules (each named in one of them)
COVERED_HERE = {
    "bucket",
    "bucket-key",
    "file.format",
    "file.compression",
    "target-file-size",
    "partition.default-name",
    "metadata.stats-mode",
    "data-file.prefix",
    "changelog-file.prefix",
    "merge-engine",
    "changelog-producer",
    "changelog-producer.row-deduplicate",
    "sequence.field",
    "sequence.field.sort-order",
    "ignore-delete",
    "partial-update.remove-record-on-delete",
    "snapshot.num-retained.min",
    "snapshot.num-retained.max",
    "snapshot.time-retained",
    "snapshot.expire.limit",
    "write-only",
    "num-sorted-run.compaction-trigger",
    "num-levels",
    "compaction.min.file-num",
    "compaction.max.file-num",
    "compaction.max-size-amplification-percent",
    "compaction.size-ratio",
    "full-compaction.delta-commits",
    "dynamic-bucket.target-row-num",
    "file.compression.zstd-level",
    "manifest.compression",
    "write-buffer-size",
    "orc.timestamp-ltz.legacy.type",
    "manifest.merge-min-count",
    "manifest.target-file-size",
    "scan.mode",
    "consumer.ignore-progress",
}
FIELD_COVERED_HERE = {  # per-column options (fields.<col>.<name>) tested there too
    "aggregate-function",
    "ignore-retract",
    "list-agg-delimiter",
    "sequence-group",
    "stats-mode",
}
COVERED_ELSEWHERE = {
    "global-index.enabled": "tests/core/metadata/test_pk_index.py",
    "pk-bitmap.index.columns": "tests/core/metadata/test_pk_index.py",
    "pk-btree.index.columns": "tests/core/metadata/test_pk_index.py",
    "metadata.iceberg-compatible": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.storage": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.compaction.max.file-num": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.compaction.min.file-num": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.format-version": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.previous-versions-max": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.delete-after-commit.enabled": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.manifest-compression": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.storage-location": "tests/cli/test_iceberg_metadata.py",
    "manifest.full-compaction-threshold-size": "tests/interop/test_manifest_merge_interop.py",
    "fields.default-aggregate-function": "tests/interop/test_merge_engines_interop.py (agg_product)",
    "file.format.per.level": "tests/interop/test_file_formats_interop.py",
    "file.compression.per.level": "tests/core/fileformat/test_file_formats.py",
    "changelog-file.format": "tests/interop/test_file_formats_interop.py",
    "changelog-file.compression": "tests/interop/test_file_formats_interop.py",
    "file.suffix.include.compression": "tests/interop/test_file_formats_interop.py",
    "postpone.batch-write-fixed-bucket": "tests/interop/test_postpone_interop.py",
    "postpone.default-bucket-num": "tests/interop/test_postpone_interop.py",
    "postpone.target-row-num-per-bucket": "tests/core/write/test_postpone.py",
    "postpone.merge-on-read": "tests/core/write/test_postpone.py",
    "bucket-function.type": "tests/interop/test_newer_metadata_interop.py",
    "row-tracking.enabled": "tests/interop/test_newer_metadata_interop.py",
    "data-evolution.enabled": "tests/core/metadata/test_newer_metadata.py",
    "data-file.thin-mode": "tests/interop/test_newer_metadata_interop.py",
    "consumer.expiration-time": "tests/core/read/test_stream.py",
    "disable-explicit-type-casting": "tests/core/metadata/test_schema_evolution.py",
    "deletion-vectors.enabled": "tests/interop/test_deletion_vectors_interop.py",
    "type": "tests/core/metadata/test_newer_metadata.py",
    "index-file-in-data-file-dir": "tests/core/options/test_options.py",
    "metastore.partitioned-table": "tests/catalog/test_hive_catalog.py",
    "deletion-vectors.bitmap64": "tests/core/metadata/test_deletion_vectors.py",
    "cross-partition-upsert.index-ttl": "tests/core/write/test_cross_partition.py",
    "cross-partition-upsert.bootstrap-parallelism": "tests/core/write/test_cross_partition.py",
    "changelog.num-retained.max": "tests/interop/test_changelog_lifecycle_interop.py",
    "changelog.num-retained.min": "tests/interop/test_changelog_lifecycle_interop.py",
    "changelog.time-retained": "tests/core/maintain/test_changelog_expire.py",
    "end-input.check-partition-expire": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-check-interval": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-max-num": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-strategy": "tests/interop/test_production_interop.py",
    "partition.expiration-time": "tests/interop/test_production_interop.py",
    "partition.mark-done-action": "tests/cli/test_partition.py",
    "partition.timestamp-formatter": "tests/interop/test_production_interop.py",
    "partition.timestamp-pattern": "tests/core/maintain/test_partition_time.py",
    "scan.fallback-branch": "tests/interop/test_branches_interop.py",
    "sink.watermark-time-zone": "tests/core/options/test_options.py (parsing only: watermark tags follow the "
    "watermarks Java's commits carry, which our commits never set; not tested end to end)",
    "tag.automatic-completion": "tests/core/maintain/test_after_commit.py",
    "tag.automatic-creation": "tests/interop/test_production_interop.py",
    "tag.creation-delay": "tests/core/maintain/test_after_commit.py",
    "tag.creation-period": "tests/interop/test_production_interop.py",
    "tag.default-time-retained": "tests/interop/test_production_interop.py",
    "tag.num-retained-max": "tests/core/maintain/test_after_commit.py",
    "tag.period-formatter": "tests/interop/test_production_interop.py",
    "blob.target-file-size": "tests/interop/test_blob_java14_interop.py (the same .blob files as Java's)",
    "blob-field": "tests/cli/test_newer_features.py",
}
FIELD_COVERED_ELSEWHERE = {  # per-column options (fields.<col>.<name>) tested in another module
    "distinct": "tests/core/merge/test_merge_types.py",
    "nested-key": "tests/core/merge/test_merge_types.py",
}
NO_OBSERVABLE_EFFECT = {
    "manifest.format": "avro (read by Java in every test) and orc (tests/core/metadata/test_orc_manifests.py); parquet is refused by name",
    "partition.legacy-name": "only the default (true) is accepted; other values are refused by name",
    "commit.max-retries": "retries of a lost commit race; tests/safety covers concurrent writers",
}


def test_every_option_is_covered():
    known = COVERED_HERE | set(COVERED_ELSEWHERE) | set(NO_OBSERVABLE_EFFECT)
    missing = sorted(set(OPTIONS) - known)
    assert not missing, f"options with no test: {missing} (add a test here or say where/why)"
    field_missing = sorted(set(FIELD_OPTIONS) - FIELD_COVERED_HERE - set(FIELD_COVERED_ELSEWHERE))
    assert not field_missing, f"per-column options with no test: {field_missing}"
    stale = sorted(known - set(OPTIONS))
    assert not stale, f"listed but not options any more: {stale}"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    here = os.path.dirname(os.path.abspath(__file__))
    option_modules = ""
    for name in sorted(os.listdir(here)):
        if name.startswith("test_options_") and name.endswith("_interop.py"):
            with open(os.path.join(here, name)) as f:
                option_modules += f.read()
    unnamed = sorted(k for k in COVERED_HERE | FIELD_COVERED_HERE if k not in option_modules)
    assert not unnamed, f"listed as covered by test_options_*_interop.py but named in none: {unnamed}"
    for key, where in list(COVERED_ELSEWHERE.items()) + list(FIELD_COVERED_ELSEWHERE.items()):
        path = os.path.join(root, where.split()[0])
        assert os.path.exists(path), (key, where)
        with open(path) as f:
            assert key in f.read(), f"{key}: not mentioned in {where}"
