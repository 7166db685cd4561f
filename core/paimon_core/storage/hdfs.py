"""HDFS: ``hdfs://`` (and ``viewfs://``) through hdfs-native, a native HDFS client (no JVM, no
libhdfs), and ``webhdfs://`` through fsspec's WebHDFS client over HTTP.

``hdfs://namenode:8020/warehouse`` names a NameNode, or an HA nameservice that
``$HADOOP_CONF_DIR/hdfs-site.xml`` defines, and an absolute path on it; ``hdfs:///warehouse``
takes ``fs.defaultFS`` from ``$HADOOP_CONF_DIR/core-site.xml``. Storage options are Hadoop
configuration keys handed to the client (``dfs.client.*``, ``hadoop.security.authentication``;
with ``kerberos`` the client uses the ticket cache of ``kinit``). ``webhdfs://host:9870/path``
takes the options ``user`` (``user.name``), ``use_https`` and ``kerb`` of fsspec's client.

Create-if-absent (a commit): the data goes to a temporary file beside the target, which is then
renamed onto the target without overwriting. The NameNode refuses a rename onto an existing file
(Hadoop's ``FileSystem.rename`` contract, which Java's HadoopFileIO relies on too), so of two
writers exactly one creates the file, and a reader never sees it half written.
"""

from __future__ import annotations

import uuid
from typing import Any

from paimon_core.errors import InvalidInput, PaimonError

SCHEMES = ("hdfs", "viewfs", "webhdfs")
WEBHDFS_DEFAULT_PORT = 9870
# hdfs-native's retries when the NameNode does not answer, unless the options say otherwise:
# about 8 s in all (a quick NameNode restart fits in), where its defaults keep a command waiting for
# minutes on a wrong address
RETRY_DEFAULTS = {
    "dfs.client.failover.max.attempts": "3",
    "dfs.client.failover.sleep.base": "500",
    "dfs.client.failover.sleep.max": "2000",
}
_REACHED: set[tuple[str, str]] = set()  # (scheme, authority) answered once in this process
# hdfs-native filesystems by (scheme, authority, options), kept here and not in fsspec's instance
# cache: in the child of a fork, fsspec clears its cache, and dropping a client whose runtime
# threads did not survive the fork hangs the child (a forked worker of multiprocessing would)
_CLIENTS: dict[tuple, Any] = {}


def split_authority(rest: str) -> tuple[str, str]:
    """``host:port/a/b`` (a URI without its scheme) -> (``host:port``, ``/a/b``)."""
    authority, _, path = rest.partition("/")
    return authority, "/" + path


def _host_port(authority: str) -> tuple[str | None, int | None]:
    host, _, port = authority.rpartition(":") if ":" in authority else (authority, "", "")
    if port and not port.isdigit():
        raise InvalidInput(f"bad HDFS address '{authority}': the port must be a number")
    return host or None, int(port) if port else None


def filesystem(scheme: str, authority: str, options: dict[str, Any]):
    """The fsspec filesystem for ``scheme://authority``."""
    import fsspec

    host, port = _host_port(authority)
    if scheme == "webhdfs":
        if host is None:
            raise InvalidInput("a webhdfs:// path names its NameNode: webhdfs://HOST:PORT/path")
        return fsspec.filesystem("webhdfs", host=host, port=port or WEBHDFS_DEFAULT_PORT, **options)
    try:
        from hdfs_native.fsspec import HdfsFileSystem, ViewfsFileSystem
    except ImportError:
        raise PaimonError(f"{scheme}:// needs the hdfs-native package: pip install hdfs-native") from None
    config = RETRY_DEFAULTS | {k: str(v) for k, v in options.items()}
    key = (scheme, authority, tuple(sorted(config.items())))
    fs = _CLIENTS.get(key)
    if fs is None:
        cls = HdfsFileSystem if scheme == "hdfs" else ViewfsFileSystem
        fs = _CLIENTS[key] = cls(host=host, port=port, skip_instance_cache=True, **config)
    if (scheme, authority) not in _REACHED:
        try:
            fs.client.get_file_info("/")
        except OSError as e:
            where = f"at {authority}" if authority else "of fs.defaultFS ($HADOOP_CONF_DIR)"
            raise PaimonError(f"cannot reach the HDFS NameNode {where}: {e}") from None
        _REACHED.add((scheme, authority))
    return fs


def write_then_rename(fs, path: str, data: bytes, overwrite: bool) -> bool:
    """Write ``data`` to a temporary file beside ``path`` and rename it onto ``path``; without
    ``overwrite``, False (and nothing changed) when ``path`` exists."""
    directory, name = path.rsplit("/", 1)
    tmp = f"{directory}/.{name}.{uuid.uuid4().hex}.tmp"
    fs.pipe_file(tmp, data)
    renamed = False
    try:
        if hasattr(fs, "client"):  # hdfs-native
            try:
                fs.client.rename(tmp, path, overwrite)
                renamed = True
            except FileExistsError:
                pass
        else:
            renamed = _webhdfs_rename(fs, tmp, path, overwrite)
        return renamed
    finally:
        if not renamed:  # a refused or failed rename leaves the temporary file: remove it
            try:
                fs.rm_file(tmp)
            except OSError:
                pass


def _webhdfs_rename(fs, src: str, dst: str, overwrite: bool) -> bool:
    """WebHDFS RENAME answers ``{"boolean": false}`` when it did not rename (the target exists)."""
    if overwrite:
        try:
            fs.rm_file(dst)
        except FileNotFoundError:
            pass
    answer = fs._call("RENAME", method="put", path=src, destination=dst).json()
    return bool(answer.get("boolean"))
