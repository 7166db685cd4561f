"""The SQL of Java Paimon 0.9's JDBC catalog (``JdbcUtils`` and the distributed-lock dialects),
so that the same database serves both: same tables, columns, types, keys and statements.

Tables (created when absent): ``paimon_tables`` (catalog_key, database_name, table_name),
``paimon_database_properties`` (catalog_key, database_name, property_key, property_value) and,
with ``lock.enabled``, ``paimon_distributed_locks`` (lock_id, acquired_at, expire_time_seconds).
Views: ``paimon_views`` (catalog_key, database_name, view_name, view_schema: the ViewSchema JSON),
Java 2.0's JdbcCatalog table and statements. Functions: ``paimon_functions`` (catalog_key,
database_name, function_name, function_json: the spec's CreateFunctionRequest JSON), this
project's own table (Java's JDBC catalog keeps no functions), built the same way.
Parameters are written ``?`` here; a driver with another paramstyle converts them.
"""

from __future__ import annotations

TABLES = "paimon_tables"
DATABASE_PROPERTIES = "paimon_database_properties"
LOCKS = "paimon_distributed_locks"

CREATE_TABLES = (
    "CREATE TABLE paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))"
)
CREATE_DATABASE_PROPERTIES = (
    "CREATE TABLE paimon_database_properties(catalog_key VARCHAR(255) NOT NULL,"
    "database_name VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),"
    "PRIMARY KEY (catalog_key, database_name, property_key))"
)
CREATE_LOCKS = (  # same text in the MySQL, SQLite and PostgreSQL dialects; %d: lock-key-max-length
    "CREATE TABLE paimon_distributed_locks(lock_id VARCHAR(%d) NOT NULL,"
    "acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,"
    "PRIMARY KEY (lock_id))"
)

GET_TABLE = "SELECT * FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? "
LIST_TABLES = "SELECT * FROM paimon_tables WHERE catalog_key = ? AND database_name = ?"
DELETE_TABLES = "DELETE FROM  paimon_tables WHERE catalog_key = ? AND database_name = ?"
RENAME_TABLE = (
    "UPDATE paimon_tables SET database_name = ? , table_name = ?  WHERE catalog_key = ? AND "
    "database_name = ? AND table_name = ? "
)
DROP_TABLE = "DELETE FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? "
GET_DATABASE = "SELECT database_name FROM paimon_tables WHERE catalog_key = ? AND database_name = ? LIMIT 1"
LIST_TABLE_DATABASES = "SELECT DISTINCT database_name FROM paimon_tables WHERE catalog_key = ?"
INSERT_TABLE = "INSERT INTO paimon_tables (catalog_key, database_name, table_name)  VALUES (?,?,?)"

GET_DATABASE_PROPERTIES = (
    "SELECT database_name FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? "
)
ALL_DATABASE_PROPERTIES = (
    "SELECT *  FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? "
)
DELETE_DATABASE_PROPERTIES = (
    "DELETE FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ?"
)
UPDATE_DATABASE_PROPERTY = (
    "UPDATE paimon_database_properties SET property_value = ? WHERE catalog_key = ? AND database_name = ? "
    "AND property_key = ?"
)
DELETE_DATABASE_PROPERTY = (
    "DELETE FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? AND property_key = ?"
)
LIST_PROPERTY_DATABASES = (
    "SELECT DISTINCT database_name FROM paimon_database_properties WHERE catalog_key = ?"
)


def insert_properties(count: int) -> str:
    return (
        "INSERT INTO paimon_database_properties (catalog_key, database_name, property_key, property_value) "
        "VALUES " + ", ".join(["(?,?,?,?)"] * count)
    )


VIEWS = "paimon_views"
CREATE_VIEWS = (
    "CREATE TABLE paimon_views(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,"
    "view_name VARCHAR(255) NOT NULL,view_schema TEXT NOT NULL, PRIMARY KEY (catalog_key, database_name, view_name))"
)
GET_VIEW = "SELECT * FROM paimon_views WHERE catalog_key = ? AND database_name = ? AND view_name = ? "
LIST_VIEWS = (
    "SELECT view_name FROM paimon_views WHERE catalog_key = ? AND database_name = ? ORDER BY view_name"
)
INSERT_VIEW = (
    "INSERT INTO paimon_views (catalog_key, database_name, view_name, view_schema)  VALUES (?,?,?,?)"
)
DROP_VIEW = "DELETE FROM paimon_views WHERE catalog_key = ? AND database_name = ? AND view_name = ? "
DELETE_VIEWS = "DELETE FROM  paimon_views WHERE catalog_key = ? AND database_name = ?"
RENAME_VIEW = (
    "UPDATE paimon_views SET database_name = ? , view_name = ?  WHERE catalog_key = ? AND "
    "database_name = ? AND view_name = ? "
)
UPDATE_VIEW = (
    "UPDATE paimon_views SET view_schema = ?  WHERE catalog_key = ? AND database_name = ? AND view_name = ? "
)
LIST_VIEW_DATABASES = "SELECT DISTINCT database_name FROM paimon_views WHERE catalog_key = ?"

FUNCTIONS = "paimon_functions"
CREATE_FUNCTIONS = (
    "CREATE TABLE paimon_functions(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,"
    "function_name VARCHAR(255) NOT NULL,function_json TEXT NOT NULL, "
    "PRIMARY KEY (catalog_key, database_name, function_name))"
)
GET_FUNCTION = (
    "SELECT * FROM paimon_functions WHERE catalog_key = ? AND database_name = ? AND function_name = ? "
)
LIST_FUNCTIONS = (
    "SELECT function_name FROM paimon_functions WHERE catalog_key = ? AND database_name = ? "
    "ORDER BY function_name"
)
INSERT_FUNCTION = (
    "INSERT INTO paimon_functions (catalog_key, database_name, function_name, function_json) VALUES (?,?,?,?)"
)
DROP_FUNCTION = (
    "DELETE FROM paimon_functions WHERE catalog_key = ? AND database_name = ? AND function_name = ? "
)
DELETE_FUNCTIONS = "DELETE FROM paimon_functions WHERE catalog_key = ? AND database_name = ?"
UPDATE_FUNCTION = (
    "UPDATE paimon_functions SET function_json = ? WHERE catalog_key = ? AND database_name = ? "
    "AND function_name = ?"
)

LOCK_ACQUIRE = "INSERT INTO paimon_distributed_locks (lock_id,expire_time_seconds) VALUES (?,?)"
LOCK_RELEASE = "DELETE FROM paimon_distributed_locks WHERE lock_id = ?"
# a lock older than its expire_time_seconds is taken to be left by a dead holder
LOCK_CLEAR_EXPIRED = {
    "sqlite": (
        "DELETE FROM paimon_distributed_locks WHERE  strftime('%s', 'now') - strftime('%s', acquired_at) > "
        "expire_time_seconds and lock_id = ?"
    ),
    "postgresql": (
        "DELETE FROM paimon_distributed_locks WHERE EXTRACT(EPOCH FROM AGE(NOW(), acquired_at)) >"
        "expire_time_seconds and lock_id = ?"
    ),
}
