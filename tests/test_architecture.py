"""The layering rules of DESIGN: the core never imports the CLI (typer, rich, paimon_cli), only the
Spark engine imports pyspark, and no module imports form a cycle, counting imports inside functions.

Imports are read from the source (ast), so lazy imports count as much as top-level ones. An import of
``pkg.sub`` depends on ``pkg.sub`` only (not on everything ``pkg/__init__`` re-exports)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPARK_PREFIX = "paimon_core.engines.spark"  # the package engines/spark/


def _modules(folder: Path, package: str) -> dict[str, Path]:
    out = {}
    for p in folder.rglob("*.py"):
        parts = list(p.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = p
    return out


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (annotation-only imports
    never run, so they cannot form an import cycle)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.If)
                and isinstance(child.test, ast.Name)
                and child.test.id == "TYPE_CHECKING"
            ):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _imports(path: Path, known: dict | None = None) -> set[str]:
    """The modules ``path`` imports: ``from m import x`` gives ``m.x`` when that is a module of
    ``known``, else ``m``; ``import a.b`` gives ``a.b``."""
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if known and sub in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


CORE_DIR = ROOT / "core" / "paimon_core"  # the package paimon_core in its source root core/
CORE = _modules(CORE_DIR, "paimon_core")


def _graph() -> dict[str, set[str]]:
    return {name: {i for i in _imports(path, CORE) if i in CORE and i != name} for name, path in CORE.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_core_has_no_import_cycles():
    assert _cycles(_graph()) == []


def test_core_has_no_import_cycles_even_through_annotations():
    """The schema rulebook (``metadata/schema_rules.py``) opened the last loop, which ran
    through annotation-only imports (schema, features, deletion vectors, table context,
    schema evolution)."""
    graph = {n: {d for d in _all_imports(p) if d in CORE and d != n} for n, p in CORE.items()}
    assert _cycles(graph) == []


def test_core_never_imports_the_cli():
    for name, path in CORE.items():
        bad = {i for i in _imports(path) if i.split(".")[0] in ("typer", "rich", "click", "paimon_cli")}
        assert not bad, f"{name} imports {sorted(bad)}"


def test_only_the_spark_engine_imports_pyspark():
    for name, path in CORE.items():
        if name.startswith(SPARK_PREFIX):
            continue
        bad = {i for i in _imports(path) if i.split(".")[0] == "pyspark"}
        assert not bad, f"{name} imports {sorted(bad)}"


def test_the_cli_uses_engines_through_their_package_api():
    for path in (ROOT / "paimon_cli").rglob("*.py"):
        bad = {
            i
            for i in _imports(path)
            if i.startswith(("paimon_core.engines.spark", "paimon_core.engines.base"))
        }
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


# The folders of the core as layers, lowest first. A module imports only from its own layer or
# the layers below it (annotation-only imports included: a type is a dependency too), and the
# folders of one layer do not import each other in a cycle. Top-level modules are named alone.
LAYERS = [
    (
        "base",
        ("clock", "errors", "journal", "lazy_exports", "paths", "options", "data", "storage"),
    ),
    ("file formats", ("fileformat",)),
    ("metadata", ("metadata",)),
    ("merge functions", ("merge",)),
    ("readers and writers", ("read", "write")),
    ("commit", ("commit",)),
    ("compaction and maintenance", ("compaction", "maintain", "iceberg")),
    ("operations", ("ops",)),
    ("tables and catalogs", ("table", "catalog", "systables")),
    ("engines", ("engines",)),
    ("package", ("",)),
]


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(module: str) -> int:
    folder = _folder(module)
    for i, (_, folders) in enumerate(LAYERS):
        if folder in folders:
            return i
    raise AssertionError(f"{module}: its folder {folder!r} is in no layer of LAYERS")


def _all_imports(path: Path) -> set[str]:
    """Like ``_imports`` but with annotation-only imports too."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if sub in CORE else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {i for i in found if i in CORE}


def test_core_folders_import_only_downwards():
    upward = [
        f"{name} ({LAYERS[_layer(name)][0]}) imports {dep} ({LAYERS[_layer(dep)][0]})"
        for name, path in sorted(CORE.items())
        for dep in sorted(_all_imports(path))
        if _layer(dep) > _layer(name)
    ]
    assert upward == [], "\n".join(upward)


CATALOG_LAYERS = [
    "names",
    "lookup",
    "object_changes",
    "views",
    "functions",
    "objects",
    "replace",
    "base",
    "filesystem",
    "metastore",
    "factory",
]  # catalog/, from the bottom up


def test_the_catalog_package_imports_only_downwards():
    """Inside ``catalog/``: names, the lookup by name without the table stack, replacing a table in
    place (on the table, below the interface that offers it), the interface, the filesystem
    catalog, the metastore catalogs built on the interface, the factory that picks one
    (annotation-only imports included)."""

    def level(module: str) -> int:
        return CATALOG_LAYERS.index(module.split(".")[2])

    found = []
    for name, path in CORE.items():
        if not name.startswith("paimon_core.catalog.") or name.count(".") < 2:
            continue
        for dep in _all_imports(path):
            if dep.startswith("paimon_core.catalog.") and dep.count(".") >= 2 and level(dep) > level(name):
                found.append(f"{name} imports {dep}")
    assert found == []


def test_folders_of_one_layer_form_no_cycle():
    graph: dict[str, set[str]] = {}
    for name, path in CORE.items():
        graph.setdefault(_folder(name), set())
        for dep in _all_imports(path):
            if _folder(dep) != _folder(name) and _layer(dep) == _layer(name):
                graph[_folder(name)].add(_folder(dep))
    for folder in list(graph):
        for dep in graph[folder]:
            graph.setdefault(dep, set())
    assert _cycles(graph) == []


# Policies that hold the system together, each in one module: the text that spells a policy out
# may appear there only (docs/architecture.md, "Policies that hold the system together").
ONE_PLACE = {
    "system column names": (
        r'"(_SEQUENCE_NUMBER|_VALUE_KIND|_KEY_|_ROW_ID|_ROW_POS)"',
        {"data/system_columns.py"},
    ),
    "bucket numbers with a meaning": (
        r"(bucket\w*|num_buckets) *(==|!=|<|<=) *-[12]\b|POSTPONE_BUCKET *=|DYNAMIC_BUCKET *=",
        {"options/bucket_mode.py"},
    ),
    "merge engine names": (
        r'"(deduplicate|first-row|partial-update|aggregation)"',
        {"options/merge_engine.py", "options/keys.py"},
    ),
    "time travel to a time": (r"\bat_or_before\(", {"metadata/time_travel.py", "metadata/snapshot.py"}),
    "tag files read": (
        r"\bsnapshot_from_tag\(|TagManager\(",
        {"metadata/tags.py", "metadata/live_files.py", "metadata/time_travel.py"},
    ),
    "branch table names (db.t$branch_NAME)": (r"[\"']\$branch_|\$branch_\{", {"metadata/branches.py"}),
    "housekeeping after a commit": (
        r"\b(expire_after_commit|expire_partitions_after_commit|create_auto_tags|create_batch_tag|sync_iceberg)\(|"
        r"\bexpire_tags\(table, now_ms\)",
        {
            "maintain/after_commit.py",
            "maintain/expire.py",
            "maintain/partition_expire.py",
            "maintain/auto_tags.py",
            "iceberg/sync.py",
        },
    ),
    "epoch milliseconds of now (one clock, injectable)": (
        r"time\.time\(\) *\* *1000",
        # and the REST tokens' expiry: real time on both sides (a fixed test clock must not make
        # a token immortal)
        {"clock.py", "catalog/metastore/rest/token_io.py", "paimon_cli/rest/tokens.py"},
    ),
    "the table layout's directory and file-name prefixes": (
        r'"(schema|snapshot|tag|consumer|changelog)-"|join\([^)]*"(schema|snapshot|tag|consumer|changelog)"',
        {"paths.py", "options/registry.py"},  # the registry: changelog-file.prefix's default
    ),
    "what follows a write's commit": (r"\bauto_compact\(table, messages\)", {"ops/after_write.py"}),
    "the -o and --engine choices": (r'\("table", "json"|\("auto", "local"', {"paimon_cli/config.py"}),
    "the rules of a table schema": (
        r"\b(check_schema|validate_merge_options|check_pk_index_options|check_dv_options)\(",
        {
            "metadata/schema.py",
            "metadata/schema_rules.py",
            "metadata/merge_options.py",
            "options/table_rules.py",
            "write/kv_writer.py",
        },  # the rulebook, the rules it calls, the writer that re-checks DV options
    ),
    "commit-or-abort": (r"\bdiscard_files\(", set()),  # checked below: only the commit defines and runs it
}


def _core_sources():
    for path in sorted(CORE_DIR.rglob("*.py")):
        yield str(path.relative_to(CORE_DIR)), path.read_text()
    for path in sorted((ROOT / "paimon_cli").rglob("*.py")):
        yield str(path.relative_to(ROOT)), path.read_text()


def test_each_policy_lives_in_one_place():
    import re

    found = {}
    for policy, (pattern, allowed) in ONE_PLACE.items():
        if policy == "commit-or-abort":
            continue
        rx = re.compile(pattern)
        where = sorted({name for name, text in _core_sources() if rx.search(text)} - allowed)
        if where:
            found[policy] = where
    assert found == {}, found


def test_no_module_imports_a_private_name_of_another():
    """What another module needs is public: ``from paimon_core.x import _y`` hides a dependency."""
    found = []
    for name, path in {**CORE, **_modules(ROOT / "paimon_cli", "paimon_cli")}.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
                "paimon_core",
                "paimon_cli",
            ):
                found += [
                    f"{name}: {node.module}.{a.name}" for a in node.names if a.name[:1] == "_" != a.name[1:2]
                ]
    assert found == []


def test_only_the_commit_and_writers_that_give_up_delete_message_files():
    """Commit-or-abort belongs to ``FileStoreCommit.commit``: no caller wraps a commit in its
    own cleanup. ``discard_files`` is called by the commit, by ``FileStoreTable.discard`` and by
    work that gives up before it reaches a commit (compaction, delete and column-update planning)."""
    import re

    rx = re.compile(r"\bdiscard_files\(")
    users = sorted(name for name, text in _core_sources() if rx.search(text))
    assert users == [
        "commit/file_store_commit.py",
        "compaction/bucket_compaction.py",
        "compaction/postpone_compaction.py",
        "ops/delete.py",
        "ops/update_columns.py",
        "table.py",
    ]
    for name, text in _core_sources():
        for m in re.finditer(r"\.commit\((?:.|\n){0,200}?\)\n(\s*)except BaseException:", text):
            raise AssertionError(f"{name}: a commit wrapped in a hand-written cleanup ({m.group(0)[:60]!r})")


def test_table_options_are_read_through_their_typed_option():
    """``CoreOptions.get(BUCKET)`` with ``BUCKET: Option[int]``, as Java's ``ConfigOption<T>``:
    no module reads an implemented table option by its key string, neither from ``CoreOptions``
    nor from a schema's raw option strings (writing an option's string is fine)."""
    import re

    from paimon_core.options.registry import FIELD_OPTIONS, OPTIONS

    keys = "|".join(re.escape(k) for k in sorted(OPTIONS, key=len, reverse=True))
    receiver = r"\b(?:options|opts|core_options|core|raw|o|self\.options)"
    reads = re.compile(
        rf"{receiver}\s*\.\s*(?:get|is_set)\(\s*[\"'](?:{keys})[\"']"
        rf"|{receiver}\s*\[\s*[\"'](?:{keys})[\"']\s*\](?!\s*=[^=])"
        rf"|\.field\([^)]*,\s*[\"'](?:{'|'.join(map(re.escape, FIELD_OPTIONS))})[\"']\s*\)"
    )
    found = [
        f"{name}:{i}: {line.strip()}"
        for name, text in _core_sources()
        if name != "options/registry.py"
        for i, line in enumerate(text.splitlines(), 1)
        if reads.search(line)
    ]
    assert found == [], "\n".join(found)


def test_catalog_options_are_read_through_their_typed_option():
    """The same for catalog options (``options/catalog_options.py``): the catalogs read none by
    its key string."""
    import re

    from paimon_core.options.catalog_options import CATALOG_OPTIONS

    keys = "|".join(re.escape(k) for k in sorted(CATALOG_OPTIONS, key=len, reverse=True))
    receiver = r"\b(?:options|opts|self\.options|merged|view)"
    reads = re.compile(
        rf"{receiver}\.get\(\s*[\"'](?:{keys})[\"']|{receiver}\[\s*[\"'](?:{keys})[\"']\s*\](?!\s*=[^=])"
    )
    found = [
        f"{name}:{i}: {line.strip()}"
        for name, text in _core_sources()
        if name.startswith("catalog/")
        for i, line in enumerate(text.splitlines(), 1)
        if reads.search(line)
    ]
    assert found == [], "\n".join(found)


# The core's public face, what the CLI may import: the package's lazy exports (schemas, schema
# changes, value parsing and text forms, the operations commands call), its errors, the table
# facade (with its snapshot view), the catalogs (with the REST protocol, whose wire format and DLF
# signing the REST server shares with the client), the operations (ops/), and the maintenance
# and engine packages' own faces. Everything else is the core's inside.
CLI_PUBLIC = {
    "paimon_core",
    "paimon_core.errors",
    "paimon_core.table",
    "paimon_core.catalog",
    "paimon_core.catalog.factory",
    "paimon_core.catalog.metastore.rest",
    "paimon_core.maintain",
    "paimon_core.engines",
}


def test_commands_import_only_the_cores_public_face():
    """A command parses, calls one operation of the public face and renders its result: no
    module of ``paimon_cli`` imports past the face (imports for annotations only are free)."""
    past = {}
    for path in (ROOT / "paimon_cli").rglob("*.py"):
        for i in _imports(path):
            if i.startswith("paimon_core") and i not in CLI_PUBLIC and not i.startswith("paimon_core.ops."):
                past.setdefault(i, []).append(str(path.relative_to(ROOT)))
    assert not past, f"the CLI reaches past the core's public face: {past}"


def test_the_public_faces_name_what_they_export():
    """Each lazily exporting package (the root, ``catalog``, ``maintain``) lists in ``__all__``
    exactly the names its ``_EXPORTS`` map imports, and each of them exists there."""
    import importlib

    for name in ("paimon_core", "paimon_core.catalog", "paimon_core.maintain"):
        package = importlib.import_module(name)
        assert package.__all__ == sorted(package._EXPORTS), name
        missing = [n for n, m in package._EXPORTS.items() if not hasattr(importlib.import_module(m), n)]
        assert not missing, f"{name} exports names its modules lack: {missing}"
