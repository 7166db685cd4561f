"""The write path: input files, fitting rows to the schema, bucket assignment, append and key-value writers, ingest."""
