"""``one_value_array``: one-element arrays built from buffers equal what ``pa.array`` builds."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type
from paimon_core.data.values import one_value_array


@pytest.mark.parametrize(
    "type_text,internal,python",
    [
        ("BOOLEAN", True, True),
        ("BOOLEAN", False, False),
        ("TINYINT", -128, -128),
        ("SMALLINT", 32767, 32767),
        ("INT", -(2**31), -(2**31)),
        ("BIGINT", 2**63 - 1, 2**63 - 1),
        ("DATE", -1, dt.date(1969, 12, 31)),
        ("DATE", 19723, dt.date(2024, 1, 1)),
        ("INT", None, None),
    ],
)
def test_one_value_array_equals_pa_array(type_text, internal, python):
    t = parse_type(type_text)
    got = one_value_array(internal, t)
    assert got.equals(pa.array([python], got.type)) and got.to_pylist() == [python]


def test_other_types_are_refused():
    with pytest.raises(TypeError):
        one_value_array("x", parse_type("STRING"))
