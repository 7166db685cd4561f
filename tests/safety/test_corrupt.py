"""Damaged or missing metadata and data: reading raises CorruptMetadata (a PaimonError) whose
message names the damaged file, never returns wrong rows and never leaks a raw exception type
(JSONDecodeError, KeyError, OSError, ArrowInvalid...); the CLI prints one line on stderr and
exits 1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.errors import CorruptMetadata
from tests.safety.checks import rows_of
from tests.safety.conftest import make_table
from tests.safety.worker import arrow_batch, batch_rows

PAIMON = os.path.join(os.path.dirname(sys.executable), "paimon")


def _truncate(path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])


def _empty(path: str) -> None:
    open(path, "wb").close()


def _garbage(path: str) -> None:
    with open(path, "wb") as f:
        f.write(b"\x00\xff not what you expected \xfe" * 3)


def _drop_json_key(key: str):
    def damage(path: str) -> None:
        import json

        with open(path) as f:
            obj = json.load(f)
        obj.pop(key)
        with open(path, "w") as f:
            json.dump(obj, f)

    return damage


def _latest(t):
    return t.snapshots.latest()


def _manifests_of(t, s):
    return [
        m.file_name
        for lst in (s.base_manifest_list, s.delta_manifest_list)
        for m in t.manifests.read_list(lst)
    ]


def _data_file(t):
    split = t.plan(_latest(t))[0]
    return os.path.join(t.bucket_path(split.partition, split.bucket), split.files[0].file_name)


# (case id, which file: table -> path, damage, snapshot to read (None: latest))
CASES = [
    ("snapshot-truncated", lambda t: t.snapshots.path(_latest(t).id), _truncate, None),
    ("snapshot-empty", lambda t: t.snapshots.path(_latest(t).id), _empty, None),
    ("snapshot-garbage", lambda t: t.snapshots.path(_latest(t).id), _garbage, None),
    (
        "snapshot-missing-field",
        lambda t: t.snapshots.path(_latest(t).id),
        _drop_json_key("baseManifestList"),
        None,
    ),
    ("old-snapshot-truncated", lambda t: t.snapshots.path(2), _truncate, 2),
    (
        "base-manifest-list-missing",
        lambda t: t.manifests.path(_latest(t).base_manifest_list),
        os.unlink,
        None,
    ),
    (
        "delta-manifest-list-missing",
        lambda t: t.manifests.path(_latest(t).delta_manifest_list),
        os.unlink,
        None,
    ),
    ("manifest-list-truncated", lambda t: t.manifests.path(_latest(t).base_manifest_list), _truncate, None),
    ("manifest-missing", lambda t: t.manifests.path(_manifests_of(t, _latest(t))[0]), os.unlink, None),
    ("manifest-truncated", lambda t: t.manifests.path(_manifests_of(t, _latest(t))[0]), _truncate, None),
    ("manifest-garbage", lambda t: t.manifests.path(_manifests_of(t, _latest(t))[-1]), _garbage, None),
    ("data-file-missing", _data_file, os.unlink, None),
    ("data-file-truncated", _data_file, _truncate, None),
    ("schema-truncated", lambda t: t.schemas.path(0), _truncate, None),
    ("schema-garbage", lambda t: t.schemas.path(0), _garbage, None),
    ("schema-missing-field", lambda t: t.schemas.path(0), _drop_json_key("fields"), None),
]


@pytest.fixture(scope="module", params=[False, True], ids=["append", "pk"])
def pristine(request, tmp_path_factory):
    """A table with four snapshots (three appends and a compaction) and its expected rows."""
    pk = request.param
    wh = str(tmp_path_factory.mktemp("corrupt") / "wh")
    cat = FileSystemCatalog(wh)
    cat.create_database("db")
    t = make_table(cat, "db.t", pk, {"write-only": "true"})
    for b in range(3):
        t.write_arrow(arrow_batch(batch_rows(0, b, pk), pk))
    compact(t, full=True)
    t.write_arrow(arrow_batch(batch_rows(1, 0, pk), pk))
    return wh, pk, {sid: rows_of(t.read(snapshot_id=sid)) for sid in t.snapshots.list_ids()}


@pytest.fixture
def damaged(pristine, tmp_path):
    """A fresh copy of the pristine warehouse per test."""
    wh, pk, want = pristine
    copy = str(tmp_path / "wh")
    shutil.copytree(wh, copy)
    return copy, pk, want


def _read(wh: str, snapshot_id):
    t = FileSystemCatalog(wh).get_table("db.t")
    return t.read(snapshot_id=snapshot_id)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_damage_gives_a_clear_error_naming_the_file(damaged, case):
    wh, pk, want = damaged
    name, which, damage, snapshot_id = case
    assert rows_of(_read(wh, snapshot_id)) == want[snapshot_id or max(want)]
    target = which(FileSystemCatalog(wh).get_table("db.t"))
    damage(target)
    try:
        got = _read(wh, snapshot_id)
    except CorruptMetadata as e:
        assert os.path.basename(target) in str(e), f"{name}: the error does not name the file: {e}"
        assert "\n" not in str(e).strip()
    except Exception as e:  # noqa: BLE001 - the point: nothing but CorruptMetadata may escape
        pytest.fail(f"{name}: {type(e).__name__} leaked instead of CorruptMetadata: {e}")
    else:
        pytest.fail(f"{name}: read returned {got.num_rows} rows from a damaged table instead of failing")


CLI_CASES = (
    "snapshot-truncated",
    "snapshot-garbage",
    "old-snapshot-truncated",
    "base-manifest-list-missing",
    "manifest-missing",
    "manifest-truncated",
    "data-file-missing",
    "schema-truncated",
)


def test_cli_prints_one_line_and_exits_1(pristine, tmp_path):
    """Damage of each kind through ``paimon read``: exit 1, one line on stderr naming the file,
    no traceback (CLI start-up is slow: the cases are split between the two table kinds)."""
    wh, pk, want = pristine
    procs = []
    mine = CLI_CASES[len(CLI_CASES) // 2 :] if pk else CLI_CASES[: len(CLI_CASES) // 2]
    for name, which, damage, snapshot_id in [c for c in CASES if c[0] in mine]:
        copy = str(tmp_path / name)
        shutil.copytree(wh, copy)
        target = which(FileSystemCatalog(copy).get_table("db.t"))
        damage(target)
        args = [PAIMON, "-w", copy, "read", "-t", "db.t"] + (
            ["--snapshot", str(snapshot_id)] if snapshot_id else []
        )
        procs.append(
            (
                name,
                target,
                subprocess.Popen(
                    args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path)
                ),
            )
        )
    failures = []
    for name, target, p in procs:
        out, err = p.communicate(timeout=120)
        lines = err.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or os.path.basename(target) not in err or "Traceback" in err:
            failures.append(f"{name}: exit {p.returncode}, stderr {err!r}, stdout {out[:200]!r}")
    assert not failures, "\n".join(failures)


def test_stale_or_garbage_hints_are_only_hints(damaged):
    """LATEST/EARLIEST are hints: a stale, garbage, missing or too-new hint never changes what
    is read (the listing decides)."""
    wh, pk, want = damaged
    t = FileSystemCatalog(wh).get_table("db.t")
    latest = os.path.join(t.snapshots.dir, "LATEST")
    earliest = os.path.join(t.snapshots.dir, "EARLIEST")
    for text in ("1", "garbage", "999", "", "\xff\xfe", None):
        for hint in (latest, earliest):
            if text is None:
                if os.path.exists(hint):
                    os.unlink(hint)
            else:
                with open(hint, "wb") as f:
                    f.write(text.encode("latin-1"))
        t = FileSystemCatalog(wh).get_table("db.t")
        assert t.snapshots.latest_id() == max(want)
        assert t.snapshots.earliest_id() == min(want)
        assert rows_of(t.read()) == want[max(want)]
