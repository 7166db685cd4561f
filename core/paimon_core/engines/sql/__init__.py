"""What both SQL engines (DuckDB in this process, Spark) share: ``refs`` (the table names of a
statement, ``$``-suffixes and time travel, resolved to tables), ``script`` (statements split and
INSERT/DELETE parsed), ``aggregates`` and ``partition_filter`` (answers from manifests), and
``writes`` (INSERT and DELETE through the table's own write and delete)."""
