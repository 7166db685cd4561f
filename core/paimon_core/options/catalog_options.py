"""The options of a metastore or REST catalog (``-c key=value``, ``paimon.toml``'s ``[catalog]``),
typed as table options are: each an ``Option[T]``, read through ``OptionView``.

Invariant: a catalog reads its options only through these constants; which of them a catalog
kind accepts is its own list (``MetastoreCatalog.extra_options``, the REST catalog's)."""

from __future__ import annotations

from paimon_core.options.registry import Option

# every catalog (filesystem, JDBC, Hive, REST)
CATALOG_OPTIONS_TABLE_ENABLED = Option[bool](
    "catalog-options-table.enabled",
    "bool",
    False,
    "serve sys.catalog_options, which lists every catalog option, passwords and tokens included "
    "(Java 2.0's gate)",
)
EVERY_CATALOG = (CATALOG_OPTIONS_TABLE_ENABLED,)

# every metastore catalog (JDBC, Hive)
URI = Option[str | None](
    "uri", "str", None, "the metastore's address (JDBC URL, thrift://...) or the REST server's"
)
LOCK_ENABLED = Option[bool | None](
    "lock.enabled",
    "bool",
    None,
    "commit under the catalog's table lock (default: on unless the warehouse is local)",
)
LOCK_ACQUIRE_TIMEOUT = Option[int](
    "lock-acquire-timeout", "duration", 8 * 60_000, "how long a commit waits for the table lock", lo=0
)
LOCK_CHECK_MAX_SLEEP = Option[int](
    "lock-check-max-sleep", "duration", 8_000, "longest pause between two tries of a busy lock", lo=0
)
METASTORE_COMMON = (URI, LOCK_ENABLED, LOCK_ACQUIRE_TIMEOUT, LOCK_CHECK_MAX_SLEEP, *EVERY_CATALOG)

# JDBC
CATALOG_KEY = Option[str](
    "catalog-key", "str", "jdbc", "the catalog's name in the JDBC tables (Java's catalog-key)"
)
JDBC_USER = Option[str | None]("jdbc.user", "str", None, "user of the JDBC connection")
JDBC_PASSWORD = Option[str | None]("jdbc.password", "str", None, "password of the JDBC connection")
LOCK_KEY_MAX_LENGTH = Option[int](
    "lock-key-max-length", "int", 255, "longest lock id the JDBC lock table holds (Java's default)", lo=1
)
JDBC_OPTIONS = (CATALOG_KEY, JDBC_USER, JDBC_PASSWORD, LOCK_KEY_MAX_LENGTH)

# views and functions kept in a JDBC database of their own (the filesystem catalog; Hive's functions)
OBJECTS_JDBC_URI = Option[str | None](
    "catalog-objects.jdbc-uri",
    "str",
    None,
    "JDBC database (sqlite:///PATH.db, postgresql://...) keeping the catalog's views and functions",
)
OBJECTS_JDBC_USER = Option[str | None](
    "catalog-objects.jdbc.user", "str", None, "user of the views-and-functions database"
)
OBJECTS_JDBC_PASSWORD = Option[str | None](
    "catalog-objects.jdbc.password", "str", None, "password of the views-and-functions database"
)
OBJECTS_CATALOG_KEY = Option[str](
    "catalog-objects.catalog-key",
    "str",
    "jdbc",
    "the catalog's name in the views-and-functions tables (as a JDBC catalog's catalog-key)",
)
OBJECTS_OPTIONS = (OBJECTS_JDBC_URI, OBJECTS_JDBC_USER, OBJECTS_JDBC_PASSWORD, OBJECTS_CATALOG_KEY)

# Hive
METASTORE_CLIENT_TIMEOUT = Option[int](
    "metastore.client.timeout",
    "duration",
    60_000,
    "socket timeout of the metastore's thrift calls, e.g. 60 s",
    lo=1,
)
HIVE_OPTIONS = (METASTORE_CLIENT_TIMEOUT, *OBJECTS_OPTIONS)

# REST (Paimon's REST catalog; the DLF signer of Alibaba Cloud's DLF)
PREFIX = Option[str | None](
    "prefix", "str", None, "URL prefix of the server's catalog (default: from its /v1/config)"
)
WAREHOUSE = Option[str | None]("warehouse", "str", None, "the warehouse the REST server serves (default: -w)")
DATA_TOKEN_ENABLED = Option[bool](
    "data-token.enabled",
    "bool",
    False,
    "read and write table files with the server's short-lived storage tokens",
)
TOKEN = Option[str | None]("token", "str", None, "bearer token sent with every request")
TOKEN_PROVIDER = Option[str | None](
    "token.provider",
    "str",
    None,
    "how requests are authorised: bear, dlf or none (default: bear with a token)",
)
DLF_ACCESS_KEY_ID = Option[str | None]("dlf.access-key-id", "str", None, "DLF signer: access key id")
DLF_ACCESS_KEY_SECRET = Option[str | None](
    "dlf.access-key-secret", "str", None, "DLF signer: access key secret"
)
DLF_SECURITY_TOKEN = Option[str | None]("dlf.security-token", "str", None, "DLF signer: STS security token")
DLF_REGION = Option[str | None]("dlf.region", "str", None, "DLF signer: region")
DLF_SIGNING_ALGORITHM = Option[str](
    "dlf.signing-algorithm",
    "enum",
    "default",
    "DLF signer: default or openapi (unset: openapi for a uri naming dlfnext, else default)",
    ("default", "openapi"),
)
DLF_TOKEN_LOADER = Option[str | None](
    "dlf.token-loader",
    "enum",
    None,
    "DLF signer: where the keys come from: local_file (dlf.token-path) or ecs (a metadata service)",
    ("local_file", "ecs"),
)
DLF_TOKEN_PATH = Option[str | None](
    "dlf.token-path", "str", None, "DLF signer: a JSON token file (AccessKeyId, AccessKeySecret, ...)"
)
DLF_TOKEN_ECS_METADATA_URL = Option[str](
    "dlf.token-ecs-metadata-url",
    "str",
    "http://100.100.100.200/latest/meta-data/Ram/security-credentials/",
    "DLF signer, ecs: the metadata URL the role name is appended to",
)
DLF_TOKEN_ECS_ROLE_NAME = Option[str | None](
    "dlf.token-ecs-role-name", "str", None, "DLF signer, ecs: the RAM role (default: the one the URL names)"
)
REST_OPTIONS = (URI, PREFIX, WAREHOUSE, DATA_TOKEN_ENABLED, *EVERY_CATALOG)
AUTH_OPTIONS = (
    TOKEN,
    TOKEN_PROVIDER,
    DLF_ACCESS_KEY_ID,
    DLF_ACCESS_KEY_SECRET,
    DLF_SECURITY_TOKEN,
    DLF_REGION,
    DLF_SIGNING_ALGORITHM,
    DLF_TOKEN_LOADER,
    DLF_TOKEN_PATH,
    DLF_TOKEN_ECS_METADATA_URL,
    DLF_TOKEN_ECS_ROLE_NAME,
)

CATALOG_OPTIONS: dict[str, Option] = {
    o.key: o for o in (*METASTORE_COMMON, *JDBC_OPTIONS, *HIVE_OPTIONS, *REST_OPTIONS, *AUTH_OPTIONS)
}
