"""The lane drivers' side of the JSON-lines protocol (this file runs inside the engines' venvs).

A driver calls ``serve(handlers, ready)``: the protocol gets its own copy of stdout and fd 1 is
pointed at stderr, so nothing the engine prints can corrupt it. The first line out is
``{"ready": ...}``; then each line in is a request ``{"op": NAME, ...}`` and gets one line out,
``{"result": ...}`` or ``{"error": "Class: message", "trace": [...]}`` (the driver goes on).
Values: Decimal as its exact text, date/time/datetime in ISO form, bytes as hex.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any


def jsonable(v: Any) -> Any:
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v


def serve(handlers: dict[str, Callable[..., Any]], ready: Callable[[], Any]) -> None:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(msg: dict) -> None:
        out.write(json.dumps(msg, ensure_ascii=False) + "\n")
        out.flush()

    send({"ready": jsonable(ready())})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        op = req.pop("op")
        try:
            send({"result": jsonable(handlers[op](**req))})
        except Exception as e:  # a failed request is reported, the driver goes on
            tb = traceback.format_exception(type(e), e, e.__traceback__)
            send({"error": f"{type(e).__name__}: {e}"[:1500], "trace": [t.strip() for t in tb[-6:]]})
