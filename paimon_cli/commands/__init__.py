"""One module per group of commands; each exposes a Typer ``app`` whose commands the root app
serves. ``COMMANDS`` names every root command, its module and its help line, in the order of
``paimon --help``: the root lists commands from it and imports a module only when one of its
commands runs (or shows its own help), so ``paimon sql`` does not pay for ``rest-server``.

Invariant (tests/cli/test_lazy_group.py): each module's commands are exactly the names
``COMMANDS`` gives it, and each help line is the first paragraph of that command's help.
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    name: str
    module: str  # under paimon_cli.commands
    help: str  # the first paragraph of the command's help, as `paimon --help` shows it


COMMANDS: tuple[CommandEntry, ...] = tuple(
    CommandEntry(*row)
    for row in (
        ("create-table", "tables", "Create a table (and its database), or replace one with --replace."),
        ("drop-table", "tables", "Drop a table: its folder with all data and metadata is deleted."),
        ("databases", "tables", "List the databases of the warehouse."),
        ("tables", "tables", "List tables, of one database or of all."),
        ("create-database", "tables", "Create a database, with properties where the catalog stores them."),
        (
            "drop-database",
            "tables",
            "Drop a database; one that still has tables needs --cascade, which drops them (and their files) too.",
        ),
        ("rename-table", "catalog", "Rename a table: its registration and its folder on storage."),
        ("catalog", "catalog", "The catalog in use (filesystem, jdbc, hive or rest)."),
        (
            "view",
            "views",
            "Create, list, show, alter, drop and rename views (a query with columns, kept by the catalog).",
        ),
        (
            "function",
            "functions",
            "Create, list, show, alter and drop catalog functions (SQL, lambda or file definitions).",
        ),
        ("alter-table", "alter", "Change a table's schema: columns, options, comment."),
        (
            "ingest",
            "ingest",
            "Add the rows of files to a table in one commit (checked and cast to the table schema).",
        ),
        ("read", "read", "Read rows of a table, at the latest snapshot or an older one."),
        (
            "stream",
            "stream",
            "Follow a table: its rows, then each new snapshot's changes, first column _row_kind.",
        ),
        (
            "compact",
            "compact",
            "Compact a table in one COMPACT snapshot (reads return the same rows before and after).",
        ),
        (
            "rescale",
            "rescale",
            "Rewrite partitions of a bucketed table with another number of buckets, in one snapshot.",
        ),
        ("analyze", "analyze", "Compute a table's statistics and commit them as one ANALYZE snapshot."),
        ("delete", "delete", "Delete the rows matching --where, in one snapshot."),
        (
            "diff",
            "diff",
            "Changes between snapshot A (exclusive) and B (inclusive), first column _row_kind.",
        ),
        (
            "sql",
            "sql",
            "Run SQL over tables of the warehouse (DuckDB by default, Spark with --engine spark).",
        ),
        ("snapshots", "inspect", "List the snapshots of a table (each commit makes one)."),
        ("schema", "inspect", "Show the schema of a table: columns, partition keys, primary keys, options."),
        ("files", "inspect", "List the live data files of a snapshot (default: the latest)."),
        (
            "expire",
            "expire",
            "Expire old snapshots and delete the files no retained snapshot or tag uses.",
        ),
        ("partition", "partition", "List, drop, mark done and expire the partitions of a table."),
        ("tag", "tags", "Create, list and delete tags: named snapshots that survive expiry."),
        ("branch", "branches", "Create, list, delete, rename and fast-forward branches of a table."),
        (
            "rollback",
            "rollback",
            "Roll a table back to an older snapshot, a tag or a time, deleting everything newer.",
        ),
        (
            "remove-orphans",
            "orphans",
            "Delete data and metadata files that no snapshot, tag, branch or changelog uses.",
        ),
        (
            "consumer",
            "consumer",
            "List, reset and delete consumers: where a streaming reader (paimon stream --consumer-id, or a\n"
            "Paimon Flink/Spark job with consumer-id) resumes. Expiry keeps every snapshot a consumer still needs.",
        ),
        ("use", "use", "Set the default table in ./paimon.toml (other keys are kept)."),
        ("doctor", "doctor", "The health of a table at a glance, and what to run about it."),
        ("demo", "demo", "Tour of Paimon in a few seconds: an append table and a primary-key table."),
        (
            "rest-server",
            "rest_server",
            "Serve the Paimon REST catalog API (pypaimon, Java and other REST clients) over the\n"
            "warehouse's catalog (filesystem, JDBC or Hive): databases, tables, snapshots, commits, tags,\n"
            "branches, partitions and table tokens.",
        ),
    )
)
