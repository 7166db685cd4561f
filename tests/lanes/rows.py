"""The rows the lanes' table kinds are written from: one column of each common type, three
commits (inserts, upserts of some keys, a delete and an insert) and the row-kind column."""

from __future__ import annotations

COLUMNS = [
    ("k", "INT NOT NULL"),
    ("v", "STRING"),
    ("n", "BIGINT"),
    ("d", "DECIMAL(10, 2)"),
    ("dt", "DATE"),
    ("ts", "TIMESTAMP(6)"),
    ("f", "DOUBLE"),
    ("b", "BOOLEAN"),
    ("p", "STRING"),
]


def row(k: int, v: str | None, n: int | None, kind: str = "+I", p: str = "x") -> dict:
    return {
        "k": k,
        "v": v,
        "n": n,
        "d": f"{k}.25",
        "dt": f"2024-01-0{1 + k % 5}",
        "ts": f"2024-03-0{1 + k % 7}T10:00:00.{k:06d}",
        "f": k / 4,
        "b": k % 2 == 0,
        "p": p,
        "_row_kind": kind,
    }


C1 = [row(1, "a", 1), row(2, "b", 2, p="y"), row(3, "c", 3)]
C2 = [row(2, "b2", 20, p="y"), row(4, "d", 4, p="y"), row(5, None, None)]
C3 = [row(1, "a", 1, "-D"), row(6, "f", 6)]
