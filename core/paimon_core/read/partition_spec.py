"""A partition named by a user ('dt=2024-01-01,hr=3' or a dict), checked against the table's
partition keys and turned into internal values, and the test that picks it out.

Invariant: every key is a partition key, every value parses as its column's type (the table's
``partition.default-name`` stands for NULL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.data.values import internal_from_scalar
from paimon_core.errors import InvalidInput
from paimon_core.read.literals import to_scalar

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_core.metadata.table_context import TableContext


def parse_partition_spec(table: TableContext, spec: dict | str | None) -> dict | None:
    """'dt=2024-01-01,hr=3' or a dict -> {key: internal value} checked against the partition keys."""
    if spec is None or spec == "" or spec == {}:
        return None
    if isinstance(spec, str):
        items = {}
        for part in spec.split(","):
            if "=" not in part:
                raise InvalidInput(f"bad partition '{spec}': use k=v[,k2=v2]")
            k, v = part.split("=", 1)
            items[k.strip()] = v.strip()
        spec = items
    keys = list(table.schema.partition_keys)
    if not keys:
        raise InvalidInput(f"table {table.identifier} is not partitioned")
    out = {}
    for k, v in spec.items():
        if k not in keys:
            raise InvalidInput(f"'{k}' is not a partition key (partition keys: {', '.join(keys)})")
        t = table.schema.field(k).type
        out[k] = (
            None
            if v is None or v == table.schema.core_options.partition_default_name
            else internal_from_scalar(to_scalar(v, k, t, what=f"partition '{k}={v}'"), t)
        )
    return out


def partition_matcher(table: TableContext, spec: dict) -> Callable[[tuple], bool]:
    """A test on partition value tuples: whether a partition is the one ``spec`` names."""
    idx = {k: i for i, k in enumerate(table.schema.partition_keys)}
    return lambda values: all(values[idx[k]] == v for k, v in spec.items())
