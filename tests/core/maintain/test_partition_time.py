"""Partition times read as Java's PartitionTimeExtractor reads them (facts checked with Java 0.9)."""

from __future__ import annotations

from datetime import datetime

import pytest

from paimon_core.errors import InvalidInput
from paimon_core.maintain.partition_time import UnparsablePartitionTime, parse_time, partition_time


@pytest.mark.parametrize(
    ("text", "formatter", "expected"),
    [
        ("2024-01-02", None, datetime(2024, 1, 2)),
        ("2024-1-2", None, datetime(2024, 1, 2)),  # Java's default formatter takes 1-2 digit fields
        ("2024-01-02 03:04:05", None, datetime(2024, 1, 2, 3, 4, 5)),
        ("2024-01-02 03:04:05.5", None, datetime(2024, 1, 2, 3, 4, 5, 500000)),
        ("20240102", "yyyyMMdd", datetime(2024, 1, 2)),
        ("2024/01/02 07", "yyyy/MM/dd HH", datetime(2024, 1, 2, 7)),
        ("24-01-02", "yy-MM-dd", datetime(2024, 1, 2)),
        ("day 2024.01.02", "'day' yyyy.MM.dd", datetime(2024, 1, 2)),
    ],
)
def test_times_parse_as_java(text, formatter, expected):
    assert parse_time(text, formatter) == expected


@pytest.mark.parametrize(
    ("text", "formatter"),
    [("abc", None), ("2024-01-02", "yyyyMMdd"), ("19723", None), ("2024-02-30", None), ("202401", "yyyyMM")],
)
def test_values_that_do_not_parse_are_refused(text, formatter):
    with pytest.raises(UnparsablePartitionTime):
        parse_time(text, formatter)


def test_pattern_builds_the_text_from_the_keys():
    """partition.timestamp-pattern: the partition's time text built from its keys' values."""
    t = partition_time(["dt", "hr"], ["2024-01-02", "07"], "$dt $hr:00:00", None)
    assert t == datetime(2024, 1, 2, 7)


def test_a_formatter_with_letters_we_do_not_read_is_bad_input():
    with pytest.raises(InvalidInput, match="pattern letter 'E'"):
        parse_time("Mon", "EEE")
