"""Tables with no rows, built without converting a Python list.

``pa.Schema.empty_table`` (and ``pa.array([])``) convert empty Python lists, and the first such
conversion of a process imports pandas, which pyarrow checks Python objects against: about
0.4 s of a CLI command that only plans, reads files or answers from metadata. The table here is
equal to ``schema.empty_table()``: one empty chunk per column, the schema's metadata kept.
"""

from __future__ import annotations

import pyarrow as pa


def no_rows(schema: pa.Schema) -> pa.Table:
    batch = pa.RecordBatch.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)
    return pa.Table.from_batches([batch])
