"""Data files as Java Paimon writes and reads them: one module per format (``parquet``, ``orc``,
``avro``) and the dispatcher ``formats`` (format by file extension, writers by table options)."""
