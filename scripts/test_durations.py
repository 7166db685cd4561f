"""Summarise where a test run's time went, from the file tests/durations.py writes
(``build/test-durations.json`` after any pytest run of this repository).

    python scripts/test_durations.py [FILE] [--top N] [--compare OLD_FILE]

Prints the run's wall time and the summed test time, then the slowest tests, modules, lanes
(a test counts in each lane it is marked with; "fast" = no lane, not slow), fixture set-ups (by
fixture: a session fixture is paid once per worker) and, under pytest-xdist, each worker's busy
time. ``--compare`` adds the same tables' totals from an earlier run, so that the next slow test
is seen the day it lands.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

LANES = ("lanes", "interop", "spark", "catalog", "s3", "safety", "rest_lane")
DEFAULT = Path(__file__).resolve().parent.parent / "build" / "test-durations.json"


def load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        sys.exit(f"{path}: no such file (run pytest first; tests/durations.py writes it)")
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: not a durations file ({e})")


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def lanes_of(marks: list[str]) -> list[str]:
    found = [m for m in LANES if m in marks]
    if found:
        return found
    return ["slow (no lane)"] if "slow" in marks else ["fast"]


def tally(doc: dict) -> dict[str, dict[str, float]]:
    """{table: {key: seconds}} for tests, modules, lanes, fixtures and workers."""
    out: dict[str, dict[str, float]] = {
        k: defaultdict(float) for k in ("test", "module", "lane", "fixture", "worker")
    }
    counts: dict[str, dict[str, int]] = {k: defaultdict(int) for k in out}
    for rec in doc["records"]:
        d = rec["duration"]
        node = rec["nodeid"]
        out["test"][node] += d
        out["module"][module_of(node)] += d
        out["worker"][rec.get("worker") or "main"] += d
        for lane in lanes_of(rec.get("marks", [])):
            out["lane"][lane] += d
        if rec["when"] == "call":
            counts["module"][module_of(node)] += 1
            for lane in lanes_of(rec.get("marks", [])):
                counts["lane"][lane] += 1
        for name, scope, spent in rec.get("fixtures", []):
            key = f"{name} ({scope})"
            out["fixture"][key] += spent
            counts["fixture"][key] += 1
    return {"totals": out, "counts": counts}  # type: ignore[return-value]


def print_table(
    title: str, values: dict[str, float], counts: dict[str, int], top: int, old: dict[str, float] | None
) -> None:
    print(f"\n{title}")
    rows = sorted(values.items(), key=lambda kv: -kv[1])[:top]
    for key, secs in rows:
        n = f"{counts[key]:5d}" if key in counts else "     "
        was = ""
        if old is not None:
            before = old.get(key)
            was = "      new" if before is None else f" {secs - before:+8.1f}s"
        print(f"  {secs:8.1f}s {n}{was}  {key}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--compare", type=Path, help="an earlier run's file: print the change per row")
    args = ap.parse_args(argv)
    doc = load(args.file)
    now = tally(doc)
    old = tally(load(args.compare)) if args.compare else None
    summed = sum(r["duration"] for r in doc["records"])
    print(
        f"{args.file}: wall {doc.get('wall', 0):.1f}s, summed test time {summed:.1f}s over {len(now['totals']['test'])} tests"
    )
    titles = {
        "test": "slowest tests (set-up + call + teardown)",
        "module": "modules (tests)",
        "lane": "lanes (a test counts in each lane it has; tests)",
        "fixture": "fixture set-ups (times set up)",
        "worker": "workers (busy time)",
    }
    for key, title in titles.items():
        print_table(
            title, now["totals"][key], now["counts"][key], args.top, old["totals"][key] if old else None
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
