"""The REST lane of the CLI tests: every CLI test again with ``--catalog rest`` against one
``paimon rest-server --warehouse-root <session temp>`` (bearer token on) started by the session.

How: ``tests/cli/conftest.py`` parametrizes the autouse ``catalog_lane`` fixture over
``fs`` (the filesystem catalog, as before) and ``rest`` (markers ``rest_lane`` and ``slow``).
For ``rest``, ``Cli`` and ``run_paimon`` put ``--catalog rest --catalog-option uri=...
--catalog-option token=...`` before the arguments; the test's own ``-w`` folder is the
``warehouse`` the client names, which the server serves as a filesystem catalog (the folder
is inside the session's temp root), so a test's checks of the files on disk still hold.

Which tests run the ``rest`` variant: by default the ``SUBSET`` (named modules, a cross-section
of the CLI: databases and tables, ingest and its commits, reads with filters and time travel,
deletes, branches, compaction; 88 tests), so the suite's run stays short; ``pytest --rest-lane=full tests/cli -m rest_lane`` runs the whole
CLI through REST. ``EXCLUDED`` names the tests no REST client can run, each with its reason;
they get no ``rest`` variant in either mode.
"""

from __future__ import annotations

# rule name -> (why, node id prefixes relative to tests/cli)
EXCLUDED: dict[str, tuple[str, tuple[str, ...]]] = {
    "catalog-choice": (
        "the test chooses or configures the catalog itself (--catalog, PAIMON_CATALOG, [catalog] "
        "in paimon.toml, or the warehouse found from the environment): the lane's flags would "
        "override what it checks",
        ("test_config.py", "test_views_cli.py"),
    ),
    "default-warehouse": (
        "the test relies on the implicit ./warehouse of its working directory; a REST client's "
        "warehouse is a name the server resolves (here: inside its root), not a folder of the "
        "client's directory",
        ("test_demo_and_startup.py::test_root_help_examples_work",),
    ),
    "rest-api-lacks": (
        "the test creates a branch from a snapshot or replaces a tag, which the REST API has no "
        "request for: a REST client refuses both by name (tests/cli/rest/test_rest_client.py "
        "checks the refusal)",
        (
            "test_branches.py::test_create_from_snapshot_empty_and_rename",
            "test_partition.py::test_tag_commands",
        ),
    ),
    "filesystem-only-refusal": (
        "the test checks that the filesystem catalog refuses the done-partition action (it has no "
        "metastore to mark); a REST catalog runs it on the server (tests/cli/rest/test_rest_client.py "
        "checks that)",
        ("test_partition.py::test_mark_done_refuses_actions_this_catalog_cannot_run",),
    ),
    "no-catalog": (
        "the test prints the shell-completion script, which Typer answers only when "
        "--show-completion stands alone: no catalog is involved",
        ("test_help.py::test_shell_completion",),
    ),
    "rest-itself": (
        "the REST server and client tests (tests/cli/rest) run against their own servers",
        ("rest/",),
    ),
}

# modules whose tests run through REST in the suite's default run
SUBSET: tuple[str, ...] = (
    "test_tables.py",
    "test_read.py",
    "test_ingest.py",
    "test_delete.py",
    "test_branches.py",
    "test_compact_modes.py",
)


def _rel(nodeid: str) -> str:
    return nodeid.split("tests/cli/", 1)[-1]


def excluded_by(nodeid: str) -> str | None:
    """The rule that keeps this test out of the REST lane, or None."""
    rel = _rel(nodeid)
    for rule, (_why, prefixes) in EXCLUDED.items():
        if any(rel.startswith(p) for p in prefixes):
            return rule
    return None


def runs_rest(nodeid: str, full: bool) -> bool:
    if excluded_by(nodeid) is not None:
        return False
    return full or any(_rel(nodeid).startswith(m) for m in SUBSET)


# the flags of the current test's lane (empty: the filesystem catalog); set by ``catalog_lane``
FLAGS: list[str] = []
