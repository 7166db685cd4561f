"""What every command gets from the root callback: the resolved settings, a lazily opened
catalog, the output renderer, and table lookup with the ``--table`` > env > config rule."""

from __future__ import annotations

import sys
from functools import cached_property
from typing import TYPE_CHECKING

import typer

from paimon_cli.config import Flags, Settings
from paimon_cli.errors import CliError

if TYPE_CHECKING:  # heavy imports stay lazy: `paimon --help` must not load pyarrow
    from paimon_cli.output import Output
    from paimon_core.catalog import Catalog
    from paimon_core.table import FileStoreTable


class CliState:
    def __init__(self, flags: Flags, settings: Settings):
        self.flags = flags
        self.settings = settings

    @property
    def verbose(self) -> bool:
        return self.settings.verbose

    @cached_property
    def warehouse(self) -> str:
        """The warehouse URI; the first use notes on stderr when it is the implicit default."""
        if self.settings.warehouse_source == "default" and self.settings.catalog != "rest":
            sys.stderr.write(f"note: no warehouse configured; using {self.settings.warehouse}\n")
        return self.settings.warehouse

    @cached_property
    def catalog(self) -> Catalog:
        from paimon_core.catalog.factory import create_catalog

        s = self.settings
        return create_catalog(s.catalog, self.warehouse, s.catalog_options, s.storage or None)

    @cached_property
    def out(self) -> Output:
        from paimon_cli.output import Output

        return Output(self.settings.output)

    def table_name(self, given: str | None, what: str = "this command") -> str:
        name = given or self.settings.table
        if not name:
            raise CliError(
                f"no table given for {what}: pass --table DB.TABLE, set PAIMON_TABLE, "
                "or run `paimon use DB.TABLE`"
            )
        return name.strip()

    def table(self, given: str | None, branch: str | None = None) -> FileStoreTable:
        """The table (``--branch`` or ``DB.TABLE$branch_NAME``: that branch of it)."""
        return self.catalog.get_table(self.table_name(given), branch=branch)

    def snapshot_manager(self, given: str | None, branch: str | None = None):
        """(identifier, SnapshotManager) without loading the table stack (``catalog.lookup``)."""
        from paimon_core.catalog import table_snapshots

        name = self.table_name(given)
        if self.settings.catalog != "filesystem" or branch or "$" in name:
            table = self.catalog.get_table(name, branch=branch)  # registration, branches: the catalog's
            return table.identifier, table.snapshots
        return name, table_snapshots(self.warehouse, self.settings.storage, name)

    def engine(self):
        """The engine for heavy work: local, spark, or auto (Spark above engine.spark-threshold
        when a cluster is configured; its choice for a large job is said on stderr)."""
        from paimon_cli.output import note
        from paimon_core.engines import get_engine

        if self.settings.engine in ("spark", "auto"):
            s = self.settings.spark
            return get_engine(
                self.settings.engine,
                master=s.master,
                remote=s.remote,
                conf=dict(s.conf),
                spark_threshold=s.threshold,
                notice=note,
            )
        return get_engine(self.settings.engine)


def get_state(ctx: typer.Context) -> CliState:
    state = ctx.find_root().obj
    if not isinstance(state, CliState):  # only when a command is run outside the app
        raise CliError("the paimon CLI context is missing")
    return state
