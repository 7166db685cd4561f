"""Storage: the FileIO interface over fsspec, and S3 specifics (conditional writes, options)."""
