"""Arrow schemas as Spark sees them: the Spark StructType of an Arrow schema, and the Arrow schema
Spark hands over (or expects back) for it. Shared by the Spark engine, Spark SQL and the data source."""

from __future__ import annotations


def spark_schema(arrow_schema):
    """(Spark StructType, the Arrow schema Spark hands over / expects for it)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    fields = []
    for f in arrow_schema:
        t = f.type
        if pa.types.is_timestamp(t):
            t = pa.timestamp("us", "UTC" if t.tz else None)
        elif pa.types.is_large_string(t):
            t = pa.string()
        elif pa.types.is_large_binary(t):
            t = pa.binary()
        elif pa.types.is_time(t):
            t = pa.time64("us")
        fields.append(pa.field(f.name, t, f.nullable))
    sschema = from_arrow_schema(pa.schema(fields))
    return sschema, to_arrow_schema(sschema, timezone="UTC")
