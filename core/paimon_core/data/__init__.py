"""Values and types: Paimon data types, their Arrow mapping, internal values, BinaryRow, partitions, times."""
