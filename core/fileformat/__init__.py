"""Data files: how rows are stored in Parquet (and the other formats) the way Java Paimon reads them."""
