"""JSON in the layout of Jackson's default pretty printer, which Java Paimon uses for schema and
snapshot files (``"key" : value``, ``[ ]`` for empty arrays, objects in arrays on the same line)."""

from __future__ import annotations

import json


def dumps(obj: object, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{ }"
        items = [
            f"{pad}  {json.dumps(k, ensure_ascii=False)} : {dumps(v, indent + 1)}" for k, v in obj.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(obj, list):
        if not obj:
            return "[ ]"
        return "[ " + ", ".join(dumps(v, indent) for v in obj) + " ]"
    return json.dumps(obj, ensure_ascii=False)
