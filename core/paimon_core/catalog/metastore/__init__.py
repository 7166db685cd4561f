"""Metastore catalogs: table names registered in a shared metastore (JDBC: SQLite/PostgreSQL;
Hive Metastore), table files on the warehouse storage as with the filesystem catalog. Pick one
with ``paimon_core.catalog.factory.create_catalog``."""
