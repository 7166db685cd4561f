"""The LSM merge tree of primary-key tables: merge engines, universal compaction, compaction, changelog producers."""
