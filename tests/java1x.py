"""The tables Java Paimon 1.0-2.0 wrote, in ``../shared/fixtures/java-1x-2x`` beside the repository
(never copied into it), and their expected rows (``expected.jsonl``, encoded as that folder's
INDEX.md says). A test that needs them fails, naming where they come from, when they are absent.

``fixture_copy`` copies one table into a temporary folder (tests write only into copies);
``encoded_rows`` turns an Arrow table into the fixtures' JSON encoding, compared as multisets.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures" / "java-1x-2x"


def fixtures_root() -> Path:
    if not (ROOT / "INDEX.md").exists():
        pytest.fail(
            f"the Java Paimon 1.x/2.0 fixture tables are missing: expected at {ROOT} (../shared/"
            "fixtures/java-1x-2x beside the repository; INDEX.md there says where each table was "
            "copied from)",
            pytrace=False,
        )
    return ROOT


def table_dir(name: str) -> tuple[Path, str, Path]:
    """(warehouse, ``db.table``, table directory) of fixture ``name``."""
    wh = fixtures_root() / name
    db = next(p for p in wh.iterdir() if p.name.endswith(".db"))
    table = next(p for p in db.iterdir() if p.is_dir())
    return wh, f"{db.name[:-3]}.{table.name}", table


def fixture_copy(name: str, tmp: Path) -> tuple[str, str]:
    """(warehouse, identifier) of a private copy of fixture ``name`` under ``tmp``."""
    wh, ident, _ = table_dir(name)
    dst = tmp / name
    shutil.copytree(wh, dst)
    return str(dst), ident


def expected(name: str, file: str = "expected.jsonl") -> Counter:
    path = fixtures_root() / name / file
    return Counter(
        json.dumps(_round(json.loads(x)), sort_keys=True) for x in path.read_text().splitlines() if x.strip()
    )


def _round(v):
    if isinstance(v, float):
        return float(f"{v:.7g}")
    if isinstance(v, list):
        return [_round(x) for x in v]
    if isinstance(v, dict):
        return {k: _round(x) for k, x in v.items()}
    return v


def precisions(table: Path) -> dict[str, int]:
    """TIMESTAMP precisions of the latest schema (Arrow units do not carry them)."""
    latest = max((table / "schema").iterdir(), key=lambda p: int(p.name.split("-")[1]))
    out = {}
    for f in json.loads(latest.read_text())["fields"]:
        t = f["type"] if isinstance(f["type"], str) else ""
        m = re.match(r"TIMESTAMP(?:_LTZ)?\((\d)\)", t.replace(" WITH LOCAL TIME ZONE", "_LTZ"))
        if t.startswith("TIMESTAMP"):
            out[f["name"]] = int(m.group(1)) if m else 6
    return out


def _ts(x: int | None, t: pa.TimestampType, p: int) -> str | None:
    if x is None:
        return None
    scale = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[t.unit]
    sec, frac = divmod(x, scale)
    base = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S")
    digits = (str(frac).rjust(len(str(scale)) - 1, "0") + "0" * 9)[:p]
    return base + ("." + digits if p > 0 else "") + ("Z" if t.tz else "")


def _value(v, t: pa.DataType):
    if v is None:
        return None
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return v.decode("utf-8")
    if pa.types.is_floating(t):
        return float(f"{v:.7g}") if t.bit_width == 32 else v
    if pa.types.is_map(t):
        return [[_value(k, t.key_type), _value(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t):
        return [_value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: _value(v.get(f.name), f.type) for f in t}
    return v


def encoded_rows(table: pa.Table, precision: dict[str, int]) -> Counter:
    cols = {}
    for name, col in zip(table.column_names, table.columns):
        t = col.type
        if pa.types.is_timestamp(t):
            ints = col.cast(pa.int64()).to_pylist()
            p = precision.get(name, {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit])
            cols[name] = [_ts(x, t, p) for x in ints]
        else:
            cols[name] = [_value(v, t) for v in col.to_pylist()]
    return Counter(
        json.dumps(_round({k: cols[k][i] for k in table.column_names}), sort_keys=True)
        for i in range(table.num_rows)
    )
