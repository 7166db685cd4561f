"""A plain-Python model of a primary-key table's branches, and a seeded random history run
against the real core API next to it: writes (upserts and overwrites) to main and branches, tags,
branches made from tags (or empty), fast-forward, rollback to a tag, expiries, branch deletion and
orphan cleanup. After every step each branch's rows, and the rows of each of its tags, must equal
the model (``check``)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pyarrow as pa

from paimon_core.maintain import create_tag, expire_snapshots, remove_orphans, rollback
from paimon_core.maintain.branches import create_branch, delete_branch, fast_forward
from paimon_core.metadata.schema import Schema

FAR_FUTURE = 10**13
KEYS = 8


@dataclass
class BranchState:
    rows: dict[int, str] = field(default_factory=dict)
    snapshots: dict[int, dict[int, str]] = field(default_factory=dict)  # retained id -> rows
    tags: dict[str, tuple[int, dict[int, str]]] = field(default_factory=dict)

    @property
    def latest(self) -> int:
        return max(self.snapshots, default=0)

    def commit(self, rows: dict[int, str], latest: int) -> None:
        """A write that made snapshots up to ``latest`` (an APPEND, and a COMPACT when the writer
        compacted after it: both hold ``rows``)."""
        self.rows = dict(rows)
        for i in range(self.latest + 1, latest + 1):
            self.snapshots[i] = dict(rows)


def as_rows(state: dict[int, str]) -> list[dict]:
    return [{"id": k, "v": v} for k, v in sorted(state.items())]


def table_rows(t: pa.Table) -> list[dict]:
    return sorted(t.to_pylist(), key=lambda r: r["id"])


class History:
    """The table ``name`` of ``catalog`` and its model, driven step by step by ``random.Random(seed)``."""

    def __init__(self, catalog, name: str, seed: int):
        schema = Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), ("id",), {"bucket": "2"})
        self.catalog, self.name = catalog, name
        self.table = catalog.create_table(name, schema)
        self.rng = random.Random(seed)
        self.model: dict[str, BranchState] = {"main": BranchState()}
        self.log: list[str] = []
        self.step_no = 0

    def t(self, branch: str):
        return self.catalog.get_table(self.name, branch=branch)

    # ---- the operations, each on the table and on the model
    def write(self, branch: str) -> None:
        m = self.model[branch]
        overwrite = self.rng.random() < 0.2
        keys = sorted(self.rng.sample(range(KEYS), self.rng.randint(1, 3)))
        value = f"s{self.step_no}"
        batch = pa.table({"id": pa.array(keys, pa.int64()), "v": [f"{value}-{k}" for k in keys]})
        t = self.t(branch)
        t.write_arrow(batch, overwrite=overwrite)
        new = {} if overwrite else dict(m.rows)
        new.update({k: f"{value}-{k}" for k in keys})
        m.commit(new, t.snapshots.latest_id())
        self.log.append(f"write {branch} {keys} overwrite={overwrite}")

    def tag(self, branch: str) -> None:
        m = self.model[branch]
        if not m.snapshots:
            return
        name = f"t{self.step_no}"
        create_tag(self.t(branch), name)
        m.tags[name] = (m.latest, dict(m.rows))
        self.log.append(f"tag {branch} {name}@{m.latest}")

    def branch(self, source: str) -> None:
        src = self.model[source]
        name = f"b{self.step_no}"
        if src.tags and self.rng.random() < 0.8:
            tag = self.rng.choice(sorted(src.tags))
            sid, rows = src.tags[tag]
            create_branch(self.t(source), name, tag=tag)
            b = BranchState(dict(rows), {sid: dict(rows)}, {tag: (sid, dict(rows))})
            self.log.append(f"branch {name} from {source} tag {tag}@{sid}")
        else:
            create_branch(self.t(source), name)
            b = BranchState()
            self.log.append(f"branch {name} empty from {source}")
        self.model[name] = b

    def fast_forward(self, branch: str) -> None:
        b = self.model[branch]
        if not b.snapshots:
            return
        earliest = min(b.snapshots)
        main = self.model["main"]
        fast_forward(self.t("main"), branch)
        below = sorted(i for i in main.snapshots if i < earliest)
        gap = bool(below) and below[-1] != earliest - 1  # main's older ids go too: no gap in the ids
        main.snapshots = {} if gap else {i: main.snapshots[i] for i in below}
        main.snapshots.update({i: dict(s) for i, s in b.snapshots.items()})
        main.tags = {n: v for n, v in main.tags.items() if v[0] < earliest}
        main.tags.update(b.tags)
        main.rows = dict(b.rows)
        self.log.append(f"fast-forward {branch} (earliest {earliest})")

    def rollback(self, branch: str) -> None:
        m = self.model[branch]
        if not m.tags:
            return
        tag = self.rng.choice(sorted(m.tags))
        sid, rows = m.tags[tag]
        rollback(self.t(branch), to_tag=tag)
        if sid not in m.snapshots:
            m.snapshots = {}
        m.snapshots = {i: s for i, s in m.snapshots.items() if i <= sid}
        m.snapshots[sid] = dict(rows)
        m.tags = {n: v for n, v in m.tags.items() if v[0] <= sid}
        m.rows = dict(rows)
        self.log.append(f"rollback {branch} to {tag}@{sid}")

    def expire(self, branch: str) -> None:
        m = self.model[branch]
        keep = self.rng.randint(1, 3)
        expire_snapshots(self.t(branch), retain_max=keep, retain_min=keep, now_ms=FAR_FUTURE)
        ids = sorted(m.snapshots)
        m.snapshots = {i: m.snapshots[i] for i in ids[-keep:]}
        self.log.append(f"expire {branch} keep {keep}")

    def delete(self, branch: str) -> None:
        delete_branch(self.t("main"), branch)
        del self.model[branch]
        self.log.append(f"delete {branch}")

    def orphans(self) -> None:
        remove_orphans(self.t("main"), older_than_ms=0, now_ms=FAR_FUTURE)
        self.log.append("remove-orphans")

    # ---- driving
    def step(self) -> None:
        self.step_no += 1
        branches = sorted(self.model)
        others = [b for b in branches if b != "main"]
        r = self.rng.random()
        pick = self.rng.choice(branches)
        if r < 0.4:
            self.write(pick)
        elif r < 0.5:
            self.tag(pick)
        elif r < 0.6 and len(others) < 4:
            self.branch(pick)
        elif r < 0.68 and others:
            self.fast_forward(self.rng.choice(others))
        elif r < 0.76:
            self.expire(pick)
        elif r < 0.82:
            self.rollback(pick)
        elif r < 0.87 and others:
            self.delete(self.rng.choice(others))
        elif r < 0.92:
            self.orphans()
        else:
            self.write(pick)

    def check(self) -> None:
        """Every branch's rows and every tag's rows equal the model."""
        for name, m in sorted(self.model.items()):
            t = self.t(name)
            assert t.snapshots.latest_id() == (m.latest or None), (name, self.log)
            assert t.snapshots.list_ids() == sorted(m.snapshots), (name, self.log)
            assert table_rows(t.read()) == as_rows(m.rows), (name, self.log)
            for tag, (_sid, rows) in sorted(m.tags.items()):
                assert table_rows(t.read(tag=tag)) == as_rows(rows), (name, tag, self.log)

    def run(self, steps: int) -> History:
        for _ in range(steps):
            self.step()
            self.check()
        return self
