"""Settings precedence (flag > env > config file > default), the default-warehouse note, `use`."""

from __future__ import annotations

from pathlib import Path

import pytest

from paimon_cli.config import Flags, resolve, set_top_level_keys, tomllib
from paimon_cli.errors import CliError


def test_resolve_precedence(tmp_path):
    home = tmp_path / "home"
    (home / ".config/paimon").mkdir(parents=True)
    (home / ".config/paimon/config.toml").write_text('warehouse = "/user/wh"\ntable = "u.t"\n')
    cwd = tmp_path / "proj"
    cwd.mkdir()
    assert resolve(Flags(), {}, cwd, home).warehouse == "/user/wh"  # user config
    (cwd / "paimon.toml").write_text(
        'warehouse = "wh"\ntable = "p.t"\nengine = "local"\n'
        '[spark]\nmaster = "local[2]"\nconf = { "spark.a" = "1" }\n'
        '[storage]\nendpoint_url = "http://x"\n'
    )
    s = resolve(Flags(), {}, cwd, home)
    assert (s.warehouse, s.warehouse_source, s.table, s.engine) == (str(cwd / "wh"), "config", "p.t", "local")
    assert s.spark.master == "local[2]" and s.spark.conf == {"spark.a": "1"}
    assert s.storage == {"endpoint_url": "http://x"}
    s = resolve(Flags(), {"PAIMON_WAREHOUSE": "/env/wh", "PAIMON_TABLE": "e.t"}, cwd, home)
    assert (s.warehouse, s.warehouse_source, s.table) == ("/env/wh", "env", "e.t")
    s = resolve(
        Flags(warehouse="/flag/wh", engine="auto", spark_conf=("spark.a=2", "spark.b=3")),
        {"PAIMON_WAREHOUSE": "/env/wh"},
        cwd,
        home,
    )
    assert (s.warehouse, s.warehouse_source, s.engine) == ("/flag/wh", "flag", "auto")
    assert s.spark.conf == {"spark.a": "2", "spark.b": "3"}
    other = tmp_path / "other.toml"
    other.write_text('warehouse = "s3://b/wh"\n')
    s = resolve(Flags(config=str(other)), {}, cwd, home)  # --config replaces ./paimon.toml
    assert s.warehouse == "s3://b/wh" and s.table is None


def test_resolve_default(tmp_path):
    s = resolve(Flags(), {}, tmp_path, tmp_path / "nohome")
    assert (s.warehouse, s.warehouse_source, s.output, s.engine) == (
        "./warehouse",
        "default",
        "table",
        "auto",
    )


@pytest.mark.parametrize(
    "text, msg",
    [
        ("warehouse = 3", "'warehouse' must be a string"),
        ('engine = "flink"', "engine must be one of"),
        ("warehouse = [", "config file"),
        ('spark = "x"', "[spark] must be a table"),
    ],
)
def test_bad_config(tmp_path, text, msg):
    (tmp_path / "paimon.toml").write_text(text)
    with pytest.raises(CliError, match=msg.replace("[", r"\[")):
        resolve(Flags(), {}, tmp_path, tmp_path)


def test_missing_explicit_config(tmp_path):
    with pytest.raises(CliError, match="config file not found"):
        resolve(Flags(config="nope.toml"), {}, tmp_path, tmp_path)


def test_set_top_level_keys_keeps_the_rest(tmp_path):
    p = tmp_path / "paimon.toml"
    p.write_text('# my settings\nengine = "local"\ntable = "old.t"\n\n[storage]\nkey = "k"\n')
    set_top_level_keys(p, {"table": "new.t", "warehouse": "s3://b/w"})
    text = p.read_text()
    assert text.startswith("# my settings\n")
    assert tomllib.loads(text) == {
        "engine": "local",
        "table": "new.t",
        "warehouse": "s3://b/w",
        "storage": {"key": "k"},
    }


# ---- through the CLI


def test_flag_beats_env_beats_config(cli, tmp_path, monkeypatch):
    for name in ("a", "b", "c"):
        cli("-w", tmp_path / name, "create-table", f"{name}.t", "--schema", "id INT", warehouse=False)
    Path("paimon.toml").write_text(f'warehouse = "{tmp_path / "a"}"\n')
    assert cli.json("databases", warehouse=False) == [{"database": "a", "tables": 1}]
    monkeypatch.setenv("PAIMON_WAREHOUSE", str(tmp_path / "b"))
    assert cli.json("databases", warehouse=False) == [{"database": "b", "tables": 1}]
    assert cli.json("-w", tmp_path / "c", "databases", warehouse=False) == [{"database": "c", "tables": 1}]


def test_table_flag_beats_env_beats_config(cli):
    for name in ("x", "y", "z"):
        cli("create-table", f"db.{name}", "--schema", f"col_{name} INT")  # tell them apart by column

    def column(*args, env=None) -> str:
        return cli.json("schema", *args, warehouse=False, env=env)[0]["fields"][0]["name"]

    Path("paimon.toml").write_text(f'warehouse = "{cli.wh}"\ntable = "db.x"\n')
    assert column() == "col_x"
    assert column(env={"PAIMON_TABLE": "db.y"}) == "col_y"
    assert column("-t", "db.z", env={"PAIMON_TABLE": "db.y"}) == "col_z"
    r = cli("read", "--count", warehouse=False, env={"PAIMON_TABLE": "db.nope"}, code=1)
    assert r.stderr == "error: table 'db.nope' does not exist\n"


def test_default_warehouse_note(cli, tmp_path):
    r = cli("create-table", "d.t", "--schema", "id INT", warehouse=False)
    assert r.stderr == "note: no warehouse configured; using ./warehouse\n"
    assert (tmp_path / "warehouse" / "d.db" / "t" / "schema" / "schema-0").is_file()
    r = cli("tables", warehouse=False)
    assert r.stderr.count("note:") == 1
    cli("create-table", "d.t", "--schema", "id INT")
    assert cli("tables").stderr == ""  # a configured warehouse: no note


def test_use_writes_paimon_toml(cli, tmp_path):
    cli("create-table", "demo.events", "--schema", "id INT")
    cli("create-table", "demo.events", "--schema", "id INT", warehouse=False)  # in ./warehouse
    r = cli("use", "demo.events", warehouse=False)
    assert "table = demo.events" in r.stdout
    assert tomllib.loads(Path("paimon.toml").read_text()) == {"table": "demo.events"}
    Path("paimon.toml").write_text('engine = "local"\ntable = "x.y"\n[spark]\nmaster = "local[1]"\n')
    cli("use", "demo.events")  # -w given explicitly: saved too
    assert tomllib.loads(Path("paimon.toml").read_text()) == {
        "engine": "local",
        "table": "demo.events",
        "warehouse": str(cli.wh),
        "spark": {"master": "local[1]"},
    }
    assert cli("read", "--count", warehouse=False).stdout.strip() == "0"  # both defaults now work


def test_use_does_not_save_an_env_warehouse(cli, monkeypatch):
    cli("create-table", "a.b", "--schema", "id INT")
    monkeypatch.setenv("PAIMON_WAREHOUSE", str(cli.wh))
    cli("use", "a.b", warehouse=False)
    assert tomllib.loads(Path("paimon.toml").read_text()) == {"table": "a.b"}


def test_use_refuses_a_table_that_does_not_exist(cli):
    cli("create-table", "a.b", "--schema", "id INT")
    r = cli("use", "a.c", code=1)
    assert r.stderr == "error: table 'a.c' does not exist\n"
    r = cli("use", "nodb.c", code=1)
    assert r.stderr == "error: database 'nodb' does not exist\n"
    assert not Path("paimon.toml").exists()


def test_a_mistyped_warehouse_is_an_error_not_an_empty_list(cli, tmp_path):
    cli("create-table", "a.b", "--schema", "id INT")
    typo = tmp_path / "whh"
    for args in (
        ["tables"],
        ["databases"],
        ["tables", "a"],
        ["read", "-t", "a.b"],
        ["snapshots", "-t", "a.b"],
        ["use", "a.b"],
    ):
        r = cli("-w", typo, *args, warehouse=False, code=1)
        assert r.stderr == f"error: warehouse '{typo}' does not exist (nothing at that path)\n", args
    assert cli.json("tables") == [{"database": "a", "table": "b"}]


@pytest.mark.parametrize(
    "text, message",
    [
        ('warehose = "wh"\n', "unknown key 'warehose'; did you mean 'warehouse'?"),
        ('tabel = "a.b"\n', "unknown key 'tabel'; did you mean 'table'?"),
        (
            'color = "red"\n',
            "unknown key 'color' (known: warehouse, table, engine, engine.spark-threshold, "
            "[spark], [storage], [catalog])",
        ),
        ('[spark]\nmastr = "local[1]"\n', "unknown key 'mastr' in [spark]; did you mean 'master'?"),
        ('[sprak]\nmaster = "local[1]"\n', "unknown key 'sprak'; did you mean 'spark'?"),
        ('[storage]\nendpont = "http://x"\n', "unknown key 'endpont' in [storage]; did you mean 'endpoint'?"),
        ('[storage]\nsecrte = "s"\n', "unknown key 'secrte' in [storage]; did you mean 'secret'?"),
    ],
)
def test_unknown_config_keys_are_refused(cli, text, message):
    Path("paimon.toml").write_text(text)
    r = cli("tables", code=1)
    assert r.stderr == f"error: config file {Path.cwd() / 'paimon.toml'}: {message}\n"


def test_storage_passes_other_filesystem_options(cli):
    Path("paimon.toml").write_text(
        '[storage]\nendpoint = "http://x"\nAWS_ACCESS_KEY_ID = "k"\nuse_ssl = false\n'
        "client_kwargs = { verify = false }\n"
    )
    cli("create-table", "a.b", "--schema", "id INT")
    assert cli.json("tables") == [{"database": "a", "table": "b"}]


def test_use_rejects_bad_names(cli):
    r = cli("use", "nodot", warehouse=False, code=1)
    assert r.stderr.startswith("error: bad table name")
    assert not Path("paimon.toml").exists()


def test_bad_config_file_is_one_line_error(cli):
    Path("paimon.toml").write_text("warehouse = [")
    r = cli("databases", warehouse=False, code=1)
    assert r.stderr.startswith("error: config file") and r.stderr.count("\n") == 1


def test_engine_settings_reach_the_engine(cli, events_table, monkeypatch):
    import paimon_core.engines as engines

    seen = {}

    def fake_get_engine(name, **kw):
        seen.update(name=name, **kw)
        from paimon_core.engines.local import LocalEngine

        return LocalEngine()

    monkeypatch.setattr(engines, "get_engine", fake_get_engine)
    cli(
        "--engine",
        "spark",
        "--spark-master",
        "local[2]",
        "--spark-conf",
        "spark.x=1",
        "ingest",
        "in/e1.parquet",
        "-t",
        "demo.events",
    )
    assert seen["name"] == "spark" and seen["master"] == "local[2]" and seen["conf"] == {"spark.x": "1"}
    cli("--spark-conf", "novalue", "databases", code=1)


def test_global_output_and_verbose_after_the_command(cli):
    from paimon_cli.app import hoist_global_options

    assert hoist_global_options(["-w", "x", "read", "-t", "a.b", "-o", "json", "-v"]) == [
        "-w",
        "x",
        "-o",
        "json",
        "-v",
        "read",
        "-t",
        "a.b",
    ]
    assert hoist_global_options(["tables", "--output=csv", "--", "-o"]) == [
        "--output=csv",
        "tables",
        "--",
        "-o",
    ]
    assert hoist_global_options(["-o", "csv", "-v"]) == ["-o", "csv", "-v"]
    cli("create-table", "a.t", "--schema", "id INT")
    assert cli("tables", "-o", "csv").stdout == "database,table\na,t\n"
    r = cli("read", "-t", "a.nope", "-v", code=1)
    assert "Traceback" in r.stderr


def test_engine_options_after_the_command():
    from paimon_cli.app import hoist_global_options

    assert hoist_global_options(
        [
            "ingest",
            "--engine",
            "spark",
            "--spark-master",
            "local[2]",
            "f.parquet",
            "--spark-conf",
            "a=b",
            "-t",
            "d.t",
        ]
    ) == [
        "--engine",
        "spark",
        "--spark-master",
        "local[2]",
        "--spark-conf",
        "a=b",
        "ingest",
        "f.parquet",
        "-t",
        "d.t",
    ]
    assert hoist_global_options(["compact", "--engine=spark", "--level-max"]) == [
        "--engine=spark",
        "compact",
        "--level-max",
    ]


def test_storage_help_keeps_its_brackets(cli):
    out = " ".join(cli("--help", warehouse=False, env={"COLUMNS": "200"}).stdout.replace("│", " ").split())
    assert "over [storage] in the config" in out
