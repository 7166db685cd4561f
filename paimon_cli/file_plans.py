"""How destructive commands show the files they delete: counts and bytes per kind, the
``-o json`` file list, and the ``-o table`` plan (per kind, optionally the first paths)."""

from __future__ import annotations

import sys

from paimon_cli.humanize import human_bytes


def by_kind(files) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for f in files:
        k = out.setdefault(f.kind, {"files": 0, "bytes": 0})
        k["files"] += 1
        k["bytes"] += max(f.size, 0)
    return out


def total_bytes(files) -> int:
    return sum(max(f.size, 0) for f in files)


def file_list(files) -> list[dict]:
    return [{"path": f.path, "kind": f.kind, "bytes": f.size if f.size >= 0 else None} for f in files]


def kinds_text(files) -> str:
    """``data 2, manifest 4`` (per-kind counts, for a summary line)."""
    return ", ".join(f"{k} {v['files']}" for k, v in by_kind(files).items())


def write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def print_files_plan(state, files, title: str, list_limit: int = 0) -> None:
    """Table output only: files per kind with bytes, and optionally the first paths."""
    if state.out.fmt != "table" or not files:
        return
    kinds = by_kind(files)
    rows = [[k, v["files"], human_bytes(v["bytes"])] for k, v in kinds.items()]
    rows.append(["total", len(files), human_bytes(total_bytes(files))])
    state.out.rows(["kind", "files", "bytes"], rows, title=title)
    if list_limit:
        for f in files[:list_limit]:
            write_line(f"  {f.kind:<14} {human_bytes(f.size) if f.size >= 0 else '?':>10}  {f.path}")
        if len(files) > list_limit:
            write_line(f"  ... and {len(files) - list_limit} more (-o json lists every file)")
