"""Iceberg-compatible metadata of a Paimon table, written after each commit as Java Paimon's
``IcebergCommitCallback`` writes it (see :mod:`paimon_core.iceberg.sync`)."""
