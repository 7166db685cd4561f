"""``paimon rest-server`` killed (SIGKILL) while clients commit through it: every snapshot it
left is whole, ids are contiguous, the table reads at its last snapshot, and a new server on the
same warehouse takes commits again."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import uuid

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.rest_support import TOKEN, RestServer

BASE = "/v1/paimon/databases/k/tables/t"


def _commit_unchanged(port: int, table_id: str) -> bool:
    """Commit snapshot N+1 = N's manifest lists (no row changes) through the server."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    c.request("GET", f"{BASE}/snapshot", headers=h)
    latest = json.loads(c.getresponse().read())["snapshot"]["snapshot"]
    snap = {**latest, "id": latest["id"] + 1, "uuid": str(uuid.uuid4()), "deltaRecordCount": 0}
    body = {"tableId": table_id, "baseSnapshotUuid": latest.get("uuid"), "snapshot": snap}
    c.request("POST", f"{BASE}/commit", body=json.dumps(body), headers=h)
    ok = json.loads(c.getresponse().read())["success"]
    c.close()
    return ok


@pytest.mark.slow
def test_a_killed_server_leaves_the_table_at_a_whole_snapshot(tmp_path):
    import pyarrow as pa

    wh = tmp_path / "wh"
    catalog = FileSystemCatalog(str(wh))
    table = catalog.create_table("k.t", Schema(Schema.parse_columns("id INT, v STRING")))
    rows = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"]})
    table.write_arrow(rows)
    server = RestServer(wh)
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    c.request("GET", BASE, headers={"Authorization": f"Bearer {TOKEN}"})
    table_id = json.loads(c.getresponse().read())["id"]
    stop, committed = threading.Event(), []

    def client() -> None:
        while not stop.is_set():
            try:
                if _commit_unchanged(server.port, table_id):
                    committed.append(1)
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                return  # the server is gone

    threads = [threading.Thread(target=client) for _ in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while len(committed) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(server.proc.pid, 9)  # mid-commit: clients are posting all the time
    server.proc.wait(10)
    stop.set()
    for t in threads:
        t.join(30)
    assert len(committed) >= 5

    table = catalog.get_table("k.t")
    ids = table.snapshots.list_ids()
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 1 + len(committed)
    for i in ids:
        assert table.snapshots.snapshot(i).id == i  # whole JSON, parsed
    assert sorted(table.read().to_pylist(), key=lambda r: r["id"]) == rows.to_pylist()

    again = RestServer(wh)
    try:
        assert _commit_unchanged(again.port, table_id)
    finally:
        again.stop()
    assert catalog.get_table("k.t").snapshots.list_ids()[-1] == ids[-1] + 1
