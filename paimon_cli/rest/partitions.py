"""A table's partitions over REST: list (the spec's ``Partition`` figures from the latest
snapshot's live files, as ``paimon partition list`` shows them), drop (one OVERWRITE commit
through the core's ``drop_partitions``) and mark done (the partition's ``_SUCCESS`` file, the
storage-visible done marker Java's ``success-file`` action writes; ``done`` in a listing is
whether that file exists).

A partition spec on the wire maps each key to Java's string of the value (``null`` or the
table's ``partition.default-name`` for NULL); its name, matched by ``partitionNamePattern``, is
``k=v/k2=v2`` as the partition's directory is named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import RestError, bad_request, from_core
from paimon_cli.rest.paging import like, page
from paimon_core.errors import PaimonError

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def list_partitions(svc: CatalogService, db: str, name: str, query: dict) -> dict:
    table = svc.table(db, name)
    if not table.partition_codec.keys:
        return {"partitions": [], "nextPageToken": None}
    matches = like(query.get("partitionNamePattern"))
    return _listing(svc, db, name, table, query, lambda path, _values: matches(path))


def _listing(svc: CatalogService, db: str, name: str, table, query: dict, keep) -> dict:
    """The paged ``ListPartitionsResponse`` of the live partitions ``keep(path, values)`` takes."""
    from paimon_core.maintain import java_strings, partition_stats, read_success_file

    codec = table.partition_codec
    stats = svc.core(lambda: partition_stats(table), db, name)
    named = [(codec.path(s.values), s) for s in stats]
    chunk, token = page([x for x in named if keep(x[0], x[1].values)], query, key=lambda x: x[0])
    buckets = table.schema.core_options.bucket
    out = []
    for _path, s in chunk:
        strings = java_strings(table, s.values)
        spec = {k: (codec.default_name if v is None else v) for k, v in zip(codec.keys, strings)}
        out.append(
            {
                "spec": spec,
                "recordCount": s.record_count,
                "fileSizeInBytes": s.file_size_in_bytes,
                "fileCount": s.file_count,
                "lastFileCreationTime": s.last_file_creation_time,
                "totalBuckets": buckets,
                "done": svc.core(lambda v=s.values: read_success_file(table, v), db, name) is not None,
            }
        )
    return {"partitions": out, "nextPageToken": token}


def list_by_names(svc: CatalogService, db: str, name: str, body: Any, query: dict) -> dict:
    """``partitions/list-by-names``: the listing's figures of the live partitions the specs name
    (a spec naming none is left out, as Java's server leaves it)."""
    body = svc.obj(body, "ListPartitionsByNamesRequest")
    table = svc.table(db, name)
    specs = _specs(table, db, name, body.get("specs"), "specs")
    wanted, _missing = svc.core(lambda: _live(table, specs, True), db, name)
    return _listing(svc, db, name, table, query, lambda _path, values: values in wanted)


def list_by_filter(svc: CatalogService, db: str, name: str, body: Any) -> dict:
    """``partitions/list-by-filter``: the listing of the live partitions, by
    ``partitionNamePattern`` and paged by the body's ``maxResults`` (0 or absent: the default) and
    ``pageToken``. The predicate in ``filter`` (required, a JSON text) is not evaluated: every
    partition is kept, which the spec allows (the answer may be a superset; clients re-evaluate
    the predicate), so no partition that matches is ever missed."""
    body = svc.obj(body, "ListPartitionsByFilterRequest")
    if not isinstance(body.get("filter"), str) or not body["filter"]:
        raise bad_request(
            "malformed request: ListPartitionsByFilterRequest needs 'filter' (a predicate's JSON)"
        )
    size, token, pattern = body.get("maxResults"), body.get("pageToken"), body.get("partitionNamePattern")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise bad_request(f"bad maxResults {size!r}: a non-negative integer")
    for key, value in (("pageToken", token), ("partitionNamePattern", pattern)):
        if value is not None and not isinstance(value, str):
            raise bad_request(f"malformed request: '{key}' must be a string")
    query = {k: str(v) for k, v in (("maxResults", size or None), ("pageToken", token)) if v}
    return list_partitions(svc, db, name, {**query, "partitionNamePattern": pattern or ""})


def create_partitions(svc: CatalogService, db: str, name: str, body: Any) -> dict:
    """``POST .../partitions``: registers partitions where the catalog manages them (a Hive
    table with ``metastore.partitioned-table``), answering ``{created, existed}``; 409
    ``PARTITION`` with ``ignoreIfExists: false`` when one exists (none is created then).
    Elsewhere a partition exists through its data: 501 with the spec's error body, as Java's
    server answers for a table not partitioned in the metastore."""
    from paimon_core.errors import AlreadyExists

    body = svc.obj(body, "CreatePartitionsRequest")
    ignore = body.get("ignoreIfExists", True)
    if not isinstance(ignore, bool):
        raise bad_request("malformed request: 'ignoreIfExists' must be a boolean")
    raw = body.get("partitionSpecs")
    table = svc.table(db, name)
    specs = _specs(table, db, name, raw, "partitionSpecs")
    try:
        created, existed = svc.catalog.create_partitions(table.main_identifier, specs, ignore)
    except AlreadyExists as e:
        raise RestError(409, str(e), "PARTITION", name) from None
    except PaimonError as e:
        raise from_core(e, db, name) from None
    return {"created": [raw[i] for i in created], "existed": [raw[i] for i in existed]}


def _specs(table, db: str, name: str, raw: Any, key: str) -> list[dict]:
    """The request's partition specs ({key: string}), checked: a list of objects naming only
    partition keys, each with a string (or null) value."""
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise bad_request(f"malformed request: '{key}' must be a list of partition specs (objects)")
    keys = table.partition_codec.keys
    if not keys:
        raise bad_request(f"table '{db}.{name}' is not partitioned")
    for s in raw:
        if not s or not all(isinstance(v, (str, type(None))) for v in s.values()):
            raise bad_request(f"malformed partition spec {s!r}: map keys to string values")
        unknown = sorted(k for k in s if k not in keys)
        if unknown:
            raise bad_request(f"'{unknown[0]}' is not a partition key (partition keys: {', '.join(keys)})")
    return raw


def _live(table, specs: list[dict], ignore_missing: bool) -> tuple[list[tuple], list[int]]:
    """The live partitions ``specs`` name, and the indexes of the specs that name none
    (NotFound for the first of those unless ``ignore_missing``). A spec's value is matched as
    the listing writes it (Java's partition string: a DATE's day number with legacy names), or
    else read as the CLI reads a partition value (``2024-01-02``)."""
    from paimon_core import parse_partition_spec
    from paimon_core.errors import InvalidInput, NotFound
    from paimon_core.maintain import java_strings, matching, partition_stats

    codec = table.partition_codec
    live = [(s.values, java_strings(table, s.values)) for s in partition_stats(table)]
    out: list[tuple] = []
    missing: list[int] = []
    for i, spec in enumerate(specs):
        want = {codec.keys.index(k): None if v == codec.default_name else v for k, v in spec.items()}
        hit = [vals for vals, strs in live if all(strs[j] == v for j, v in want.items())]
        if not hit:
            try:
                hit = matching(table, [parse_partition_spec(table, spec) or {}])
            except (NotFound, InvalidInput):
                hit = []
        if not hit and not ignore_missing:
            raise NotFound(f"table {table.identifier} has no partition {spec}")
        if not hit:
            missing.append(i)
        out.extend(p for p in hit if p not in out)
    return out, missing


def drop_partitions(svc: CatalogService, db: str, name: str, body: Any) -> dict:
    """One OVERWRITE commit dropping every partition named; answers which specs were dropped
    and which named no partition (``DropPartitionsResponse``). With ``ignoreIfNotExists``
    false, a spec naming none is 404 ``PARTITION`` and nothing is dropped."""
    from paimon_core.maintain import drop_partitions as core_drop

    body = svc.obj(body, "DropPartitionsRequest")
    ignore = body.get("ignoreIfNotExists", True)
    if not isinstance(ignore, bool):
        raise bad_request("malformed request: 'ignoreIfNotExists' must be a boolean")
    raw = body.get("partitionSpecs")
    table = svc.table(db, name)
    specs = _specs(table, db, name, raw, "partitionSpecs")
    try:
        partitions, missing = svc.core(lambda: _live(table, specs, ignore), db, name)
    except RestError as e:
        raise RestError(404, e.message, "PARTITION", name) from None
    svc.core(lambda: core_drop(table, partitions), db, name)
    return {
        "dropped": [s for i, s in enumerate(raw) if i not in missing],
        "missing": [s for i, s in enumerate(raw) if i in missing],
    }


def mark_done(svc: CatalogService, db: str, name: str, body: Any) -> None:
    from paimon_core.maintain import write_success_files

    body = svc.obj(body, "MarkDonePartitionsRequest")
    table = svc.table(db, name)
    specs = _specs(table, db, name, body.get("specs"), "specs")
    try:
        partitions, _missing = svc.core(lambda: _live(table, specs, False), db, name)
    except RestError as e:
        raise RestError(404, e.message, "PARTITION", name) from None
    svc.core(lambda: write_success_files(table, partitions), db, name)
