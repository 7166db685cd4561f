"""The housekeeping after commits (core/paimon_core/maintain/after_commit.py) with an injected clock
(``PAIMON_CLOCK_MS``, which also stamps the snapshots): partition expiry, automatic tags, tag TTL."""

from __future__ import annotations

import logging
from datetime import datetime

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.clock import epoch_ms
from paimon_core.errors import InvalidInput
from paimon_core.maintain import partition_expire
from paimon_core.maintain.partition_expire import ExpireSettings, UnparsablePartition, expire_partitions
from paimon_core.maintain.partitions import partition_stats
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.tags import tag_manager


def at(monkeypatch, *args) -> int:
    ms = epoch_ms(datetime(*args))
    monkeypatch.setenv("PAIMON_CLOCK_MS", str(ms))
    return ms


@pytest.fixture
def catalog(tmp_path):
    return FileSystemCatalog(str(tmp_path / "wh"))


def table(catalog, options: dict, name: str = "db.t"):
    schema = Schema(Schema.parse_columns("id BIGINT, dt STRING"), ("dt",), (), options)
    return catalog.create_table(name, schema)


def write(t, *dts: str):
    t.write_arrow(pa.table({"id": pa.array(range(len(dts)), pa.int64()), "dt": list(dts)}))


def parts(t) -> list[str]:
    return sorted(s.values[0] for s in partition_stats(t))


def kinds(t) -> list[str]:
    sm = t.snapshots
    return [sm.snapshot(i).commit_kind for i in sm.list_ids()]


EXPIRE = {
    "partition.expiration-time": "3d",
    "partition.expiration-check-interval": "0",
    "partition.timestamp-formatter": "yyyyMMdd",
}


def test_values_time_expiry_after_a_commit_drops_old_partitions_in_an_overwrite(catalog, monkeypatch, caplog):
    at(monkeypatch, 2024, 1, 6)
    t = table(catalog, EXPIRE)
    with caplog.at_level(logging.WARNING):
        write(t, "20240101", "20240105", "bad")
    assert parts(t) == ["20240105", "bad"]
    assert kinds(t) == ["APPEND", "OVERWRITE"]
    assert "partition dt=bad" in caplog.text and "cannot be read" in caplog.text


def test_max_num_caps_one_expiry_in_value_order(catalog, monkeypatch):
    at(monkeypatch, 2024, 2, 1)
    t = table(catalog, {**EXPIRE, "partition.expiration-max-num": "2"})
    write(t, "20240103", "20240101", "20240102")
    assert parts(t) == ["20240103"]
    write(t, "20240201")
    assert parts(t) == ["20240201"]


def test_the_check_interval_counts_from_the_writers_start(catalog, monkeypatch):
    start = at(monkeypatch, 2024, 1, 10)
    monkeypatch.setattr(partition_expire, "_START_MS", start)
    monkeypatch.setattr(partition_expire, "_LAST_CHECK", {})
    t = table(catalog, {k: v for k, v in EXPIRE.items() if "interval" not in k})  # default 1 h
    write(t, "20240101")
    assert parts(t) == ["20240101"]  # a batch job younger than the interval does not check
    at(monkeypatch, 2024, 1, 10, 1, 0, 1)
    write(t, "20240102")
    assert parts(t) == []
    write(t, "20240103")  # the last check was just now
    assert parts(t) == ["20240103"]


def test_end_input_check_expires_after_a_batch_commit(catalog, monkeypatch):
    start = at(monkeypatch, 2024, 1, 10)
    monkeypatch.setattr(partition_expire, "_START_MS", start)
    opts = {k: v for k, v in EXPIRE.items() if "interval" not in k}
    t = table(catalog, {**opts, "end-input.check-partition-expire": "true"})
    write(t, "20240101", "20240109")
    assert parts(t) == ["20240109"]


def test_expire_command_refuses_an_unparsable_partition_and_changes_nothing(catalog, monkeypatch):
    at(monkeypatch, 2024, 1, 6)
    t = table(catalog, {"write-only": "true"})
    write(t, "20240101", "bad")
    settings = ExpireSettings.of(t, expiration_ms=86_400_000, formatter="yyyyMMdd")
    with pytest.raises(UnparsablePartition, match="partition dt=bad"):
        expire_partitions(t, settings)
    assert parts(t) == ["20240101", "bad"] and kinds(t) == ["APPEND"]
    plan = expire_partitions(t, settings, dry_run=True, strict=False)
    assert plan.expired == (("20240101",),) and plan.snapshot is None and kinds(t) == ["APPEND"]


def test_update_time_strategy_uses_the_newest_file(catalog, monkeypatch):
    t = table(catalog, {"partition.expiration-time": "1d", "partition.expiration-strategy": "update-time"})
    write(t, "a")  # files are created at the real time
    settings = ExpireSettings.of(t)
    assert expire_partitions(t, settings).expired == ()
    now = partition_stats(t)[0].last_file_creation_time
    assert expire_partitions(t, settings, now=now + 86_400_000 + 1).expired == (("a",),)
    assert parts(t) == []


def test_bad_settings_are_refused(catalog):
    t = table(catalog, {})
    assert ExpireSettings.of(t) is None
    with pytest.raises(InvalidInput, match="strategy"):
        ExpireSettings.of(t, expiration_ms=1, strategy="nope")


# ---------------------------------------------------------------- automatic tags
TAGS = {"tag.automatic-creation": "process-time", "write-only": "false"}


def tags(t) -> dict[str, int]:
    return {n: s.id for n, s in tag_manager(t).tagged().items()}


def test_process_time_daily_tags_as_java(catalog, monkeypatch):
    at(monkeypatch, 2024, 1, 1, 10)
    t = table(catalog, TAGS)
    write(t, "a")
    assert tags(t) == {"2023-12-31": 1}  # the first snapshot tags the period before its own
    at(monkeypatch, 2024, 1, 1, 20)
    write(t, "a")
    assert tags(t) == {"2023-12-31": 1}
    at(monkeypatch, 2024, 1, 2, 1)
    write(t, "a")
    assert tags(t) == {"2023-12-31": 1, "2024-01-01": 3}
    at(monkeypatch, 2024, 1, 5, 1)
    write(t, "a")
    assert tags(t) == {"2023-12-31": 1, "2024-01-01": 3, "2024-01-04": 4}


def test_automatic_completion_tags_the_expected_period(catalog, monkeypatch):
    at(monkeypatch, 2024, 1, 1, 10)
    t = table(catalog, {**TAGS, "tag.automatic-completion": "true"})
    write(t, "a")
    at(monkeypatch, 2024, 1, 5, 1)
    write(t, "a")
    assert tags(t) == {"2023-12-31": 1, "2024-01-01": 2}


def test_hourly_without_dashes_delay_and_retained_max(catalog, monkeypatch):
    opts = {
        **TAGS,
        "tag.creation-period": "hourly",
        "tag.period-formatter": "without_dashes",
        "tag.creation-delay": "10 min",
        "tag.num-retained-max": "2",
    }
    at(monkeypatch, 2024, 1, 1, 9, 30)
    t = table(catalog, opts)
    tag_manager(t)  # no tags yet
    write(t, "a")
    assert tags(t) == {"20240101 08": 1}
    at(monkeypatch, 2024, 1, 1, 10, 5)  # the 09 period ended, but the delay has not passed
    write(t, "a")
    assert tags(t) == {"20240101 08": 1}
    at(monkeypatch, 2024, 1, 1, 10, 11)
    write(t, "a")
    at(monkeypatch, 2024, 1, 1, 11, 30)
    write(t, "a")
    assert tags(t) == {"20240101 09": 3, "20240101 10": 4}  # the oldest automatic tag deleted


def test_tag_time_to_live_expires_after_commits(catalog, monkeypatch):
    at(monkeypatch, 2024, 1, 1, 10)
    t = table(catalog, {**TAGS, "tag.default-time-retained": "1 h"})
    write(t, "a")
    snap = tag_manager(t).snapshot("2023-12-31")
    assert snap.extra["tagCreateTime"] == [2024, 1, 1, 10, 0] and snap.extra["tagTimeRetained"] == 3600.0
    at(monkeypatch, 2024, 1, 1, 10, 59)
    write(t, "a")
    assert "2023-12-31" in tags(t)
    at(monkeypatch, 2024, 1, 1, 11, 0, 1)
    write(t, "a")
    assert tags(t) == {}


def test_batch_mode_tags_each_batch_write(catalog, monkeypatch):
    at(monkeypatch, 2024, 3, 1, 10)
    t = table(catalog, {"tag.automatic-creation": "batch"})
    write(t, "a")
    write(t, "b")
    assert tags(t) == {"batch-write-2024-03-01": 2}


def test_write_only_turns_every_step_off(catalog, monkeypatch):
    at(monkeypatch, 2024, 1, 6)
    t = table(catalog, {**EXPIRE, **TAGS, "write-only": "true"})
    write(t, "20240101")
    assert parts(t) == ["20240101"] and tags(t) == {}


def test_a_failing_step_leaves_the_commit_and_runs_the_others(catalog, monkeypatch, caplog):
    at(monkeypatch, 2024, 1, 6)
    t = table(catalog, {**EXPIRE, **TAGS, "tag.creation-delay": "2d"})  # longer than the period
    with caplog.at_level(logging.WARNING):
        write(t, "20240101", "20240105")
    assert "automatic tag creation after the commit failed" in caplog.text
    assert parts(t) == ["20240105"] and kinds(t) == ["APPEND", "OVERWRITE"]
