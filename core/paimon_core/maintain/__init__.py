"""Table maintenance: snapshot expiration, tags, branches, partitions, consumers, rollback,
orphan-file removal and the health report.

Each destructive operation has a ``plan_*`` function that decides without deleting and an
operation function taking ``dry_run``; every deletion goes through ``files.delete_file``. The
names below are the package's public face, imported on first use (``__getattr__``) so that
importing one operation does not load the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.lazy_exports import lazy_exports

_EXPORTS = {
    "ChangelogFlags": "paimon_core.maintain.expire",
    "ExpirePlan": "paimon_core.maintain.expire",
    "ExpireRange": "paimon_core.maintain.expire",
    "ExpireResult": "paimon_core.maintain.expire",
    "decide_expire_range": "paimon_core.maintain.expire",
    "expire_after_commit": "paimon_core.maintain.expire",
    "expire_snapshots": "paimon_core.maintain.expire",
    "plan_expire": "paimon_core.maintain.expire",
    "PlannedFile": "paimon_core.maintain.files",
    "OrphanPlan": "paimon_core.maintain.orphans",
    "OrphanResult": "paimon_core.maintain.orphans",
    "plan_orphans": "paimon_core.maintain.orphans",
    "referenced_files": "paimon_core.maintain.orphans",
    "remove_orphans": "paimon_core.maintain.orphans",
    "RollbackPlan": "paimon_core.maintain.rollback",
    "RollbackResult": "paimon_core.maintain.rollback",
    "plan_rollback": "paimon_core.maintain.rollback",
    "rollback": "paimon_core.maintain.rollback",
    "TagDeletion": "paimon_core.maintain.tags",
    "create_tag": "paimon_core.maintain.tags",
    "delete_tag": "paimon_core.maintain.tags",
    "get_tag": "paimon_core.maintain.tags",
    "list_tags": "paimon_core.maintain.tags",
    "plan_delete_tag": "paimon_core.maintain.tags",
    "rename_tag": "paimon_core.maintain.tags",
    "tag_exists": "paimon_core.maintain.tags",
    "tag_names": "paimon_core.maintain.tags",
    "TagAlreadyExists": "paimon_core.metadata.tags",
    "TagInfo": "paimon_core.metadata.tags",
    "TagNotFound": "paimon_core.metadata.tags",
    "expire_tags": "paimon_core.maintain.auto_tags",
    "BranchInfo": "paimon_core.maintain.branches",
    "FastForwardPlan": "paimon_core.maintain.branches",
    "create_branch": "paimon_core.maintain.branches",
    "delete_branch": "paimon_core.maintain.branches",
    "fast_forward": "paimon_core.maintain.branches",
    "list_branches": "paimon_core.maintain.branches",
    "plan_delete_branch": "paimon_core.maintain.branches",
    "plan_fast_forward": "paimon_core.maintain.branches",
    "rename_branch": "paimon_core.maintain.branches",
    "branch_names": "paimon_core.maintain.used_names",
    "BranchAlreadyExists": "paimon_core.metadata.branches",
    "BranchNotFound": "paimon_core.metadata.branches",
    "PartitionStats": "paimon_core.maintain.partitions",
    "drop_partitions": "paimon_core.maintain.partitions",
    "java_strings": "paimon_core.maintain.partitions",
    "mark_done": "paimon_core.maintain.partitions",
    "matching": "paimon_core.maintain.partitions",
    "partition_stats": "paimon_core.maintain.partitions",
    "read_success_file": "paimon_core.maintain.partitions",
    "write_success_files": "paimon_core.maintain.partitions",
    "ExpireSettings": "paimon_core.maintain.partition_expire",
    "expire_partitions": "paimon_core.maintain.partition_expire",
    "TableHealth": "paimon_core.maintain.health",
    "table_health": "paimon_core.maintain.health",
    "ConsumerInfo": "paimon_core.maintain.consumers",
    "delete_consumer": "paimon_core.maintain.consumers",
    "list_consumers": "paimon_core.maintain.consumers",
    "reset_consumer": "paimon_core.maintain.consumers",
    "rollback_schema": "paimon_core.maintain.schema_rollback",
}
__all__ = [
    "BranchAlreadyExists",
    "BranchInfo",
    "BranchNotFound",
    "ChangelogFlags",
    "ConsumerInfo",
    "ExpirePlan",
    "ExpireRange",
    "ExpireResult",
    "ExpireSettings",
    "FastForwardPlan",
    "OrphanPlan",
    "OrphanResult",
    "PartitionStats",
    "PlannedFile",
    "RollbackPlan",
    "RollbackResult",
    "TableHealth",
    "TagAlreadyExists",
    "TagDeletion",
    "TagInfo",
    "TagNotFound",
    "branch_names",
    "create_branch",
    "create_tag",
    "decide_expire_range",
    "delete_branch",
    "delete_consumer",
    "delete_tag",
    "drop_partitions",
    "expire_after_commit",
    "expire_partitions",
    "expire_snapshots",
    "expire_tags",
    "fast_forward",
    "get_tag",
    "java_strings",
    "list_branches",
    "list_consumers",
    "list_tags",
    "mark_done",
    "matching",
    "partition_stats",
    "plan_delete_branch",
    "plan_delete_tag",
    "plan_expire",
    "plan_fast_forward",
    "plan_orphans",
    "plan_rollback",
    "read_success_file",
    "referenced_files",
    "remove_orphans",
    "rename_branch",
    "rename_tag",
    "reset_consumer",
    "rollback",
    "rollback_schema",
    "table_health",
    "tag_exists",
    "tag_names",
    "write_success_files",
]

if TYPE_CHECKING:  # a type checker sees each export's own type; at run time __getattr__ imports it
    from paimon_core.maintain.auto_tags import expire_tags
    from paimon_core.maintain.branches import (
        BranchInfo,
        FastForwardPlan,
        create_branch,
        delete_branch,
        fast_forward,
        list_branches,
        plan_delete_branch,
        plan_fast_forward,
        rename_branch,
    )
    from paimon_core.maintain.consumers import ConsumerInfo, delete_consumer, list_consumers, reset_consumer
    from paimon_core.maintain.expire import (
        ChangelogFlags,
        ExpirePlan,
        ExpireRange,
        ExpireResult,
        decide_expire_range,
        expire_after_commit,
        expire_snapshots,
        plan_expire,
    )
    from paimon_core.maintain.files import PlannedFile
    from paimon_core.maintain.health import TableHealth, table_health
    from paimon_core.maintain.orphans import (
        OrphanPlan,
        OrphanResult,
        plan_orphans,
        referenced_files,
        remove_orphans,
    )
    from paimon_core.maintain.partition_expire import ExpireSettings, expire_partitions
    from paimon_core.maintain.partitions import (
        PartitionStats,
        drop_partitions,
        java_strings,
        mark_done,
        matching,
        partition_stats,
        read_success_file,
        write_success_files,
    )
    from paimon_core.maintain.rollback import RollbackPlan, RollbackResult, plan_rollback, rollback
    from paimon_core.maintain.schema_rollback import rollback_schema
    from paimon_core.maintain.tags import (
        TagDeletion,
        create_tag,
        delete_tag,
        get_tag,
        list_tags,
        plan_delete_tag,
        rename_tag,
        tag_exists,
        tag_names,
    )
    from paimon_core.maintain.used_names import branch_names
    from paimon_core.metadata.branches import BranchAlreadyExists, BranchNotFound
    from paimon_core.metadata.tags import TagAlreadyExists, TagInfo, TagNotFound


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


# ``rollback`` also names a submodule, and importing a submodule sets the package's attribute of
# that name to it (once, on its first import); binding the function here, after that first import,
# keeps ``paimon_core.maintain.rollback`` the function whatever imports the submodule later
from paimon_core.maintain.rollback import rollback  # noqa: E402
