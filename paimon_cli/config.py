"""Settings resolution: command-line flags > environment > config file > defaults.

The config file is TOML: ``--config FILE``, else ``./paimon.toml``, else
``~/.config/paimon/config.toml``. Keys: ``warehouse``, ``table``, ``engine``,
``engine.spark-threshold``, ``[spark]`` (``master``, ``remote``, ``conf`` table, ``threshold``),
``[storage]`` (fsspec options) and ``[catalog]`` (``type`` = filesystem|jdbc|hive, then Paimon's
catalog options: ``uri``, ``lock.enabled``, ...; a plain ``catalog = "jdbc"`` names the type only).
Unknown keys are refused with a "did you mean". A relative local ``warehouse`` in a config file is
relative to that file's folder.

``resolve`` is a pure function of its inputs (flags, environment, cwd, home) so that the
precedence rules can be tested without touching the real environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from paimon_cli.errors import CliError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: needs the `tomli` backport (not yet a dependency)
    import tomli as tomllib

DEFAULT_WAREHOUSE = "./warehouse"
LOCAL_CONFIG = "paimon.toml"
USER_CONFIG = Path(".config") / "paimon" / "config.toml"
ENGINES = ("auto", "local", "spark")
OUTPUTS = ("table", "json", "csv")
ENV_WAREHOUSE = "PAIMON_WAREHOUSE"
ENV_TABLE = "PAIMON_TABLE"
ENV_CATALOG = "PAIMON_CATALOG"  # the catalog type
ENV_CATALOG_URI = "PAIMON_CATALOG_URI"  # its uri option


@dataclass(frozen=True)
class Flags:
    """Global options exactly as given on the command line (None = not given)."""

    warehouse: str | None = None
    config: str | None = None
    output: str | None = None
    verbose: bool = False
    engine: str | None = None
    spark_master: str | None = None
    spark_remote: str | None = None
    spark_conf: tuple[str, ...] = ()
    storage: tuple[str, ...] = ()
    catalog: str | None = None
    catalog_option: tuple[str, ...] = ()


@dataclass(frozen=True)
class SparkSettings:
    master: str | None = None
    remote: str | None = None
    conf: dict = field(default_factory=dict)
    threshold: str | None = None  # engine.spark-threshold for --engine auto (bytes or "2gb")


@dataclass(frozen=True)
class Settings:
    warehouse: str
    warehouse_source: str  # "flag", "env", "config" or "default"
    table: str | None  # the default table (env or config); a command's --table wins over it
    output: str = "table"
    verbose: bool = False
    engine: str = "auto"
    spark: SparkSettings = field(default_factory=SparkSettings)
    storage: dict = field(default_factory=dict)
    config_path: Path | None = None
    catalog: str = "filesystem"
    catalog_options: dict = field(default_factory=dict)


def parse_kv(items, what: str) -> dict[str, str]:
    """``["k=v", ...]`` -> dict; ``what`` names the option in the error message."""
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"bad {what} '{item}': use KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def find_config(explicit: str | None, cwd: Path, home: Path) -> Path | None:
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_absolute():
            path = cwd / path
        if not path.is_file():
            raise CliError(f"config file not found: {explicit}")
        return path
    for candidate in (cwd / LOCAL_CONFIG, home / USER_CONFIG):
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as e:
        raise CliError(f"config file {path}: {e}") from None
    _check_config(path, data)
    return data


TOP_KEYS = ("warehouse", "table", "engine", "engine.spark-threshold", "spark", "storage", "catalog")
SPARK_KEYS = ("master", "remote", "conf", "threshold")


def _did_you_mean(key: str, known) -> str | None:
    import difflib

    found = difflib.get_close_matches(key.lower(), list(known), n=1, cutoff=0.75)
    return found[0] if found else None


def _check_keys(path: Path, data: dict) -> None:
    """Unknown keys are mistakes (the keys are this CLI's own), except in [storage], whose
    other keys go to the filesystem as they are: there only near misses of known names fail."""
    for key in data:
        if key not in TOP_KEYS:
            hint = _did_you_mean(key, TOP_KEYS)
            raise CliError(
                f"config file {path}: unknown key '{key}'"
                + (
                    f"; did you mean '{hint}'?"
                    if hint
                    else " (known: warehouse, table, engine, "
                    "engine.spark-threshold, [spark], [storage], [catalog])"
                )
            )
    spark = data.get("spark")
    for key in spark if isinstance(spark, dict) else ():
        if key not in SPARK_KEYS:
            hint = _did_you_mean(key, SPARK_KEYS)
            raise CliError(
                f"config file {path}: unknown key '{key}' in [spark]"
                + (f"; did you mean '{hint}'?" if hint else " (known: master, remote, conf, threshold)")
            )
    storage = data.get("storage")
    if isinstance(storage, dict):
        from paimon_core import S3_STORAGE_OPTIONS

        for key in storage:
            norm = str(key).strip().lower().replace("-", "_")
            if norm not in S3_STORAGE_OPTIONS and norm not in ("client_kwargs", "config_kwargs"):
                hint = _did_you_mean(norm, S3_STORAGE_OPTIONS)
                if hint:
                    raise CliError(
                        f"config file {path}: unknown key '{key}' in [storage]; did you mean '{hint}'?"
                    )


def _check_config(path: Path, data: dict) -> None:
    def fail(msg: str):
        raise CliError(f"config file {path}: {msg}")

    _check_keys(path, data)

    for key in ("warehouse", "table", "engine"):
        if key in data and not isinstance(data[key], str):
            fail(f"'{key}' must be a string")
    if data.get("engine") is not None and data["engine"] not in ENGINES:
        fail(f"engine must be one of {', '.join(ENGINES)}, not '{data['engine']}'")
    for key in ("spark", "storage"):
        if key in data and not isinstance(data[key], dict):
            fail(f"[{key}] must be a table")
    if "catalog" in data and not isinstance(data["catalog"], (str, dict)):
        fail('catalog must be a type name (catalog = "jdbc") or a [catalog] table')
    spark = data.get("spark", {})
    for key in ("master", "remote"):
        if key in spark and not isinstance(spark[key], str):
            fail(f"spark.{key} must be a string")
    if "conf" in spark and not isinstance(spark["conf"], dict):
        fail("spark.conf must be a table of key = value")


def _is_uri(path: str) -> bool:
    return "://" in path


def _config_relative(value: str, config_path: Path) -> str:
    if _is_uri(value):
        return value
    p = Path(value).expanduser()
    return str(p if p.is_absolute() else config_path.parent / p)


def resolve(flags: Flags, env: Mapping[str, str], cwd: Path, home: Path) -> Settings:
    """Apply the precedence flag > env > config file > default to every setting."""
    config_path = find_config(flags.config, cwd, home)
    cfg = load_config(config_path)

    if flags.warehouse:
        warehouse, source = flags.warehouse, "flag"
    elif env.get(ENV_WAREHOUSE):
        warehouse, source = env[ENV_WAREHOUSE], "env"
    elif cfg.get("warehouse"):
        warehouse, source = _config_relative(cfg["warehouse"], config_path), "config"
    else:
        warehouse, source = DEFAULT_WAREHOUSE, "default"

    table = env.get(ENV_TABLE) or cfg.get("table") or None
    engine = flags.engine or cfg.get("engine") or "auto"
    if engine not in ENGINES:
        raise CliError(f"engine must be one of {', '.join(ENGINES)}, not '{engine}'")

    spark_cfg = cfg.get("spark", {})
    conf = {str(k): str(v) for k, v in spark_cfg.get("conf", {}).items()}
    conf.update(parse_kv(flags.spark_conf, "--spark-conf"))
    spark = SparkSettings(
        master=flags.spark_master or spark_cfg.get("master"),
        remote=flags.spark_remote or spark_cfg.get("remote"),
        conf=conf,
        threshold=(
            str(cfg["engine.spark-threshold"])
            if "engine.spark-threshold" in cfg
            else str(spark_cfg["threshold"])
            if "threshold" in spark_cfg
            else None
        ),
    )
    catalog, catalog_options = _resolve_catalog(flags, env, cfg)
    return Settings(
        warehouse=warehouse,
        warehouse_source=source,
        table=table,
        output=flags.output or "table",
        verbose=flags.verbose,
        engine=engine,
        spark=spark,
        storage={**dict(cfg.get("storage", {})), **parse_kv(flags.storage, "--storage")},
        config_path=config_path,
        catalog=catalog,
        catalog_options=catalog_options,
    )


def _resolve_catalog(flags: Flags, env: Mapping[str, str], cfg: dict) -> tuple[str, dict]:
    """The catalog type and its options: flag > env > config, option by option."""
    section = cfg.get("catalog", {})
    if isinstance(section, str):
        section = {"type": section}
    configured = str(section.get("type") or "filesystem").strip().lower()
    kind = str(flags.catalog or env.get(ENV_CATALOG) or configured).strip().lower()
    options = {}
    if kind == configured:  # the config's options belong to the config's catalog only
        options = {
            str(k): str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in section.items()
            if k != "type"
        }
    if env.get(ENV_CATALOG_URI):
        options["uri"] = env[ENV_CATALOG_URI]
    options.update(parse_kv(flags.catalog_option, "--catalog-option"))
    return kind, options


def resolve_from_environment(flags: Flags) -> Settings:
    return resolve(flags, os.environ, Path.cwd(), Path.home())


# ---- writing ./paimon.toml (``paimon use``)

_SECTION = re.compile(r"^\s*\[")


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def set_top_level_keys(path: Path, values: dict[str, str]) -> None:
    """Set top-level string keys in a TOML file, keeping every other line (comments included)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if text:
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise CliError(f"config file {path}: {e}; fix or remove it first") from None
    lines = text.splitlines()
    top_end = next((i for i, ln in enumerate(lines) if _SECTION.match(ln)), len(lines))
    for key, value in values.items():
        new_line = f"{key} = {_toml_string(value)}"
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        hit = next((i for i in range(top_end) if pattern.match(lines[i])), None)
        if hit is not None:
            lines[hit] = new_line
        else:
            insert_at = top_end
            while insert_at > 0 and not lines[insert_at - 1].strip():
                insert_at -= 1  # keep the blank line that separates the first section
            lines.insert(insert_at, new_line)
            top_end += 1
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)
