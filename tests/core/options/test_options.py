"""The options registry: typed values, Java's ranges, typos, and the safety net that refuses what
this project does not implement (never silently ignored)."""

import re

import pytest

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.keys import PAIMON_OPTION_KEYS
from paimon_core.options.registry import (
    IGNORE_DELETE,
    INDEX_FILE_IN_DATA_FILE_DIR,
    OPTIONS,
    SNAPSHOT_NUM_RETAINED_MIN,
    TYPE,
    UNSUPPORTED,
)
from paimon_core.options.validation import check_supported, validate_options
from paimon_core.options.values import parse_duration_ms, parse_size


@pytest.mark.parametrize(
    "key,raw,value",
    [
        ("bucket", "4", 4),
        ("write-only", "TRUE", True),
        ("write-only", "false", False),
        ("target-file-size", "128 mb", 128 * 1024**2),
        ("snapshot.time-retained", "7d", 7 * 86_400_000),
        ("merge-engine", "Partial-Update", "partial-update"),
        ("ignore-delete", "true", True),
        ("dynamic-bucket.target-row-num", "3000000000", 3_000_000_000),
    ],
)
def test_values_parse_typed(key, raw, value):
    assert CoreOptions({key: raw}).get(OPTIONS[key]) == value


def test_defaults_come_from_the_registry():
    opts = CoreOptions({})
    assert opts.get(SNAPSHOT_NUM_RETAINED_MIN) == 10
    assert opts.merge_engine == "deduplicate" and opts.changelog_producer == "none"
    assert opts.num_levels == 6  # compaction trigger 5 + 1


def test_alias_keys_are_read():
    assert CoreOptions({"first-row.ignore-delete": "true"}).get(IGNORE_DELETE) is True


@pytest.mark.parametrize(
    "options,message",
    [
        ({"bucket": "2147483648"}, "out of range [-2147483648, 2147483647]"),
        ({"bucket": "four"}, "expected an integer"),
        ({"write-only": "yes"}, "expected true or false"),
        ({"merge-engine": "dedup"}, "expected deduplicate | partial-update | aggregation | first-row"),
        ({"snapshot.num-retained.min": "0"}, "out of range [1,"),
        ({"target-file-size": "-5mb"}, "bad value"),
        ({"commit.max-retries": "-1"}, "out of range [0,"),
        ({"fields.x.ignore-retract": "maybe"}, "expected true or false"),
    ],
)
def test_bad_values_are_refused_with_the_key(options, message):
    with pytest.raises(InvalidInput) as e:
        validate_options(options, ["x"])
    assert list(options)[0] in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    "typo,meant",
    [
        ("merge-engin", "merge-engine"),
        ("snapshot.num-retained-min", "snapshot.num-retained.min"),
        ("changelog-producers", "changelog-producer"),
        ("deletion-vector.enabled", "deletion-vectors.enabled"),
    ],
)
def test_typos_of_known_keys_say_did_you_mean(typo, meant):
    with pytest.raises(InvalidInput, match=f"unknown table option '{typo}': did you mean '{meant}'"):
        validate_options({typo: "x"})


def test_unknown_keys_far_from_any_known_key_are_kept():
    validate_options({"my.own.app.setting": "1", "owner": "data-team"})


def test_harmless_paimon_keys_are_accepted():
    validate_options(
        {
            "lookup.cache-rows": "1000",
            "sink.watermark-time-zone": "UTC",
            "parquet.enable.dictionary": "true",
            "file-index.bloom-filter.columns": "id",
        }
    )


def test_field_options_must_name_a_column():
    with pytest.raises(InvalidInput, match="names column 'nope'"):
        validate_options({"fields.nope.aggregate-function": "sum"}, ["id", "v"])


def test_structural_keys_are_not_options():
    with pytest.raises(InvalidInput, match="part of the schema"):
        validate_options({"primary-key": "id"})


@pytest.mark.parametrize(
    "options",
    [
        {"deletion-vectors.merge-on-read": "true"},
        {"manifest.format": "parquet"},
        {"partition.legacy-name": "false"},
        {"scan.snapshot-id": "3"},
        {"fields.v.default-value": "0"},
        {"chain-table.enabled": "true"},
    ],
)
def test_unsupported_features_refused_on_read_and_write(options):
    for writing in (False, True):
        with pytest.raises(UnsupportedFeature, match=list(options)[0]):
            check_supported(options, writing=writing)


@pytest.mark.parametrize(
    "options",
    [
        {"rowkind.field": "op"},
        {"data-file.external-paths": "s3://x/y"},
    ],
)
def test_write_only_features_refused_on_write_but_readable(options):
    check_supported(options, writing=False)
    with pytest.raises(UnsupportedFeature, match=list(options)[0]):
        check_supported(options, writing=True)


@pytest.mark.parametrize(
    "options",
    [
        {"deletion-vectors.enabled": "false"},
        {"file.format": "parquet"},
        {"bucket": "-2"},
        {"partition.legacy-name": "true"},
        {"tag.automatic-creation": "none"},
    ],
)
def test_default_values_of_unsupported_options_are_harmless(options):
    check_supported(options, writing=True)


def test_every_registered_and_refused_key_is_a_paimon_key():
    for key in [k for k in list(OPTIONS) + list(UNSUPPORTED) if not k.startswith(("fields.", "orc."))]:
        assert key in PAIMON_OPTION_KEYS, key


def test_sizes_and_durations():
    assert parse_size("1gb") == 1024**3 and parse_size("64 MB") == 64 * 1024**2 and parse_size("10") == 10
    assert parse_duration_ms("30 min") == 1_800_000 and parse_duration_ms("500ms") == 500
    with pytest.raises(InvalidInput):
        parse_duration_ms("7 weeks")


def _refused_value(key: str) -> str:
    """A value of ``key`` that its Unsupported entry does not call harmless."""
    u = UNSUPPORTED[key]
    for v in ("true", "-2", "parquet", "x", "from-snapshot", "process-time", "false", "3", "hive-catalog"):
        if not u.applies(v):
            continue
        try:
            if key in OPTIONS:  # an implemented option with unsupported values: a value that parses
                OPTIONS[key].parse(v)
        except InvalidInput:
            continue
        return v
    raise AssertionError(f"no refused value found for {key}")


@pytest.mark.parametrize("key", sorted(k for k in UNSUPPORTED if not k.startswith("fields.")))
def test_every_refusal_of_the_safety_net_names_its_option(key):
    """Each unsupported option stops a write (and, when it changes rows, a read) with its name."""
    options = {key: _refused_value(key)}
    with pytest.raises(UnsupportedFeature, match=re.escape(key)):
        check_supported(options, writing=True)
    if UNSUPPORTED[key].reads:
        with pytest.raises(UnsupportedFeature, match=re.escape(key)):
            check_supported(options, writing=False)
    else:
        check_supported(options, writing=False)
    with pytest.raises(UnsupportedFeature, match=re.escape(key)):
        validate_options(options)


@pytest.mark.parametrize("key", sorted(k for k in UNSUPPORTED if k.startswith("fields.")))
def test_every_refused_field_option_names_its_option(key):
    concrete = key.replace("*", "v")
    with pytest.raises(UnsupportedFeature, match=re.escape(concrete)):
        check_supported({concrete: "1"}, writing=True)


def test_registered_switches_whose_other_values_are_refused():
    """`type` and `index-file-in-data-file-dir` are registered (typed, defaults) and their
    non-default values still refused: by metadata.features and by the safety net."""
    assert CoreOptions({}).get(TYPE) == "table" and CoreOptions({}).get(INDEX_FILE_IN_DATA_FILE_DIR) is False
    with pytest.raises(UnsupportedFeature, match="index-file-in-data-file-dir"):
        check_supported({"index-file-in-data-file-dir": "true"}, writing=False)


KIND_TYPES = {
    "int": "int",
    "long": "int",
    "size": "int",
    "duration": "int",
    "bool": "bool",
    "str": "str",
    "enum": "str",
}


def test_every_option_is_typed_by_its_kind():
    """``Option[T]``: T is the Python type of the option's kind, ``| None`` exactly when it has
    no default; read from the registry's source, since the type parameter is erased at run time."""
    import ast
    import inspect

    from paimon_core.options import catalog_options, registry

    for module, every in (
        (registry, {**OPTIONS, **registry.FIELD_OPTIONS}),
        (catalog_options, catalog_options.CATALOG_OPTIONS),
    ):
        typed = {}
        for node in ast.parse(inspect.getsource(module)).body:
            call = node.value if isinstance(node, ast.Assign) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Subscript):
                typed[call.args[0].value] = ast.unparse(call.func.slice)  # type: ignore[attr-defined]
        assert set(typed) == set(every), module.__name__
        _check_kinds(typed, every)


def _check_kinds(typed: dict, every: dict) -> None:
    for key, opt in every.items():
        want = KIND_TYPES[opt.kind] + (" | None" if opt.default is None else "")
        assert typed[key] == want, f"{key}: Option[{typed[key]}], its kind {opt.kind} makes it Option[{want}]"
        if opt.default is not None:
            assert type(opt.default).__name__ == KIND_TYPES[opt.kind], key


def test_an_option_is_never_a_key_of_raw_strings():
    """Reading an option from the raw string dict (``options.get(BUCKET)``) fails loudly."""
    with pytest.raises(TypeError, match="unhashable"):
        {"bucket": "4"}.get(OPTIONS["bucket"])  # type: ignore[call-overload]
