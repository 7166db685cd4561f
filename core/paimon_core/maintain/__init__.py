"""Table maintenance: snapshot expiration, tags, rollback and orphan-file removal.

Each destructive operation has a ``plan_*`` function that decides without deleting and an
operation function taking ``dry_run``; every deletion goes through ``files.delete_file``.
"""

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
from paimon_core.maintain.orphans import (
    OrphanPlan,
    OrphanResult,
    plan_orphans,
    referenced_files,
    remove_orphans,
)
from paimon_core.maintain.rollback import RollbackPlan, RollbackResult, plan_rollback, rollback
from paimon_core.maintain.tags import TagDeletion, create_tag, delete_tag, get_tag, list_tags, plan_delete_tag
from paimon_core.metadata.tags import TagAlreadyExists, TagInfo, TagNotFound

__all__ = [
    "ChangelogFlags",
    "ExpirePlan",
    "ExpireRange",
    "ExpireResult",
    "OrphanPlan",
    "OrphanResult",
    "PlannedFile",
    "RollbackPlan",
    "RollbackResult",
    "TagAlreadyExists",
    "TagDeletion",
    "TagInfo",
    "TagNotFound",
    "create_tag",
    "decide_expire_range",
    "delete_tag",
    "expire_after_commit",
    "expire_snapshots",
    "get_tag",
    "list_tags",
    "plan_expire",
    "plan_orphans",
    "plan_delete_tag",
    "plan_rollback",
    "referenced_files",
    "remove_orphans",
    "rollback",
]
