"""The pure expire decision, table-driven, with an injected clock (Java 0.9 rules)."""

import pytest

from paimon_core.errors import InvalidInput
from paimon_core.maintain import decide_expire_range

NOW = 1_000_000_000
H = 3_600_000
INT_MAX = 2147483647


def ages(*minutes_ago):
    """Snapshot ids 1..n committed the given minutes before NOW."""
    return {i + 1: NOW - m * 60_000 for i, m in enumerate(minutes_ago)}


OLD10 = ages(*[600] * 10)  # 10 snapshots, all 10 h old
CASES = [
    # name, times, kwargs, (begin, end, reason)
    ("defaults keep the newest 10", OLD10, {}, (1, 1, "retain-min")),
    ("retain-min 3", OLD10, dict(retain_min=3), (1, 8, "retain-min")),
    ("retain-min 1 keeps only latest", OLD10, dict(retain_min=1), (1, 10, "retain-min")),
    ("expire limit caps", OLD10, dict(retain_min=1, max_deletes=4), (1, 5, "expire-limit")),
    ("expire limit 0", OLD10, dict(retain_min=1, max_deletes=0), (1, 1, "expire-limit")),
    ("all young: nothing", ages(*[5] * 10), dict(retain_min=1), (1, 1, "time-retained")),
    (
        "time stops at first young",
        ages(300, 200, 100, 50, 30, 20, 10, 5),
        dict(retain_min=1, time_retained_ms=H),
        (1, 4, "time-retained"),
    ),
    (
        "boundary: exactly time-retained old is kept",
        ages(120, 60, 30),
        dict(retain_min=1, time_retained_ms=H),
        (1, 2, "time-retained"),
    ),
    (
        "retain-max expires young ones",
        ages(*[5] * 10),
        dict(retain_min=1, retain_max=3),
        (1, 8, "retain-max+time-retained"),
    ),
    ("retain-max with old ones", OLD10, dict(retain_min=1, retain_max=3), (1, 10, "retain-min")),
    ("retain-min beats retain-max", OLD10, dict(retain_min=5, retain_max=5), (1, 6, "retain-min")),
    ("consumer pins", OLD10, dict(retain_min=1, consumer_next=4), (1, 4, "consumer")),
    (
        "newer than retain-max are time-checked",
        ages(600, 600, 600, 600, 600, 10, 10, 10),
        dict(retain_min=1, retain_max=6),
        (1, 6, "time-retained"),
    ),
]


@pytest.mark.parametrize("name,times,kw,expected", CASES, ids=[c[0] for c in CASES])
def test_decide(name, times, kw, expected):
    args = dict(retain_min=10, retain_max=INT_MAX, time_retained_ms=H, max_deletes=50, now_ms=NOW)
    args.update(kw)
    r = decide_expire_range(sorted(times), times, **args)
    assert (r.begin, r.end, r.reason) == expected


def test_earliest_not_one_and_gaps():
    times = {i: NOW - 10 * H for i in range(5, 15)}
    r = decide_expire_range(
        sorted(times), times, retain_min=2, retain_max=INT_MAX, time_retained_ms=H, max_deletes=50, now_ms=NOW
    )
    assert (r.begin, r.end) == (5, 13)
    assert list(r.ids) == list(range(5, 13))
    # a hole (an interrupted expire deleted 5..7 but not the hint): begin after the hole
    times = {i: NOW - 10 * H for i in [5] + list(range(8, 15))}
    r = decide_expire_range(
        sorted(times), times, retain_min=2, retain_max=INT_MAX, time_retained_ms=H, max_deletes=50, now_ms=NOW
    )
    assert (r.begin, r.end) == (8, 13)


def test_limit_counts_from_earliest():
    times = {i: NOW - 10 * H for i in range(20, 40)}
    r = decide_expire_range(
        sorted(times), times, retain_min=1, retain_max=INT_MAX, time_retained_ms=H, max_deletes=5, now_ms=NOW
    )
    assert (r.begin, r.end, r.reason) == (20, 25, "expire-limit")


def test_empty_and_invalid():
    assert not decide_expire_range(
        [], {}, retain_min=1, retain_max=5, time_retained_ms=0, max_deletes=1, now_ms=NOW
    )
    with pytest.raises(InvalidInput):
        decide_expire_range(
            [1], {1: 0}, retain_min=0, retain_max=5, time_retained_ms=0, max_deletes=1, now_ms=NOW
        )
    with pytest.raises(InvalidInput):
        decide_expire_range(
            [1], {1: 0}, retain_min=3, retain_max=2, time_retained_ms=0, max_deletes=1, now_ms=NOW
        )
