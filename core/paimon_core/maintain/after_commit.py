"""What runs after a commit: the one place for the housekeeping Java's ``TableCommitImpl`` runs
after each commit, in Java 0.9's order:

0. the Iceberg-compatible metadata of the new snapshots (``metadata.iceberg.storage``,
   ``iceberg/sync.py``): Java writes it in a commit callback, inside the commit, before any
   expiry, and whether or not the table is ``write-only`` (tags made by step 3 are added to
   it afterwards, as Java's tag callback adds them);
1. consumers idle longer than ``consumer.expiration-time`` deleted, then snapshot expiry (with the
   changelog's) per the ``snapshot.*`` options (``maintain/expire.py``);
2. partition expiry (``partition.expiration-*``, ``maintain/partition_expire.py``), with the check
   interval a writer keeps;
3. automatic tag creation (``tag.automatic-creation``), then tag time-to-live expiry
   (``maintain/auto_tags.py``); a batch write (``batch=True``) also makes the batch-write tag.

Java 1.4 runs the same steps in the other order (tags, partitions, consumers, snapshots); the
twins of this project are checked against 0.9. ``write-only`` turns every step off, as Java's
``newCommit`` passes no snapshot expiry, partition expiry or tag manager then (and, since 1.x,
no consumer expiry: Java 0.9 still deleted idle consumers of a write-only table).

Every committing operation calls :func:`after_commit` (ingest in every mode, overwrite, delete,
compaction, streaming ingest, the Spark writer); no other module runs these steps
(tests/test_architecture.py). A step that fails does not undo or fail the commit before it: the
failure is logged as a warning (the CLI prints it on stderr) and the next step still runs, as
Java logs a failed maintenance.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paimon_core.options.registry import WRITE_ONLY

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

LOG = logging.getLogger(__name__)


@dataclass
class Housekeeping:
    """What the steps did; ``failed``: (step, message) of steps that raised."""

    expired_snapshots: object = None
    expired_partitions: tuple = ()
    created_tags: list = field(default_factory=list)
    expired_tags: list = field(default_factory=list)
    failed: list = field(default_factory=list)


def after_commit(table: TableContext, batch: bool = False, now_ms: int | None = None) -> Housekeeping:
    """Run the housekeeping of ``table``'s options after a commit (see the module doc).
    ``batch``: the commit ends a batch write (end-input partition check, batch-write tag)."""
    from paimon_core.iceberg.sync import refresh_iceberg_tags, sync_iceberg
    from paimon_core.maintain.auto_tags import create_auto_tags, create_batch_tag, expire_tags
    from paimon_core.maintain.expire import expire_after_commit
    from paimon_core.maintain.partition_expire import expire_partitions_after_commit

    done = Housekeeping()

    def step(name: str, fn):
        try:
            return fn()
        except Exception as e:  # the commit stands; Java logs a failed maintenance
            done.failed.append((name, str(e)))
            LOG.warning(f"{table.identifier}: {name} after the commit failed (the commit stands): {e}")
            return None

    step("Iceberg metadata", lambda: sync_iceberg(table))
    if table.schema.core_options.get(WRITE_ONLY):
        return done
    done.expired_snapshots = step("snapshot expiry", lambda: expire_after_commit(table, now_ms))
    parts = step("partition expiry", lambda: expire_partitions_after_commit(table, now_ms, batch))
    if parts is not None:
        done.expired_partitions = parts.expired
    done.created_tags = step("automatic tag creation", lambda: create_auto_tags(table, now_ms)) or []
    if batch:
        made = step("batch tag creation", lambda: create_batch_tag(table))
        if made:
            done.created_tags.append(made)
    done.expired_tags = step("tag expiry", lambda: expire_tags(table, now_ms)) or []
    if done.created_tags:  # the Iceberg metadata names the tags made after it was written
        step("Iceberg tags", lambda: refresh_iceberg_tags(table))
    return done


__all__ = ["Housekeeping", "after_commit"]
