"""The wheel must contain every package: pyproject.toml lists packages by hand (the import name
paimon_core maps to the folder core/), so a new subpackage missing from the list would be left out."""

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_folders(folder: Path, name: str) -> set[str]:
    found = {name}
    for init in folder.rglob("__init__.py"):
        rel = init.parent.relative_to(folder)
        if rel.parts:
            found.add(".".join((name, *rel.parts)))
    return found


def test_every_package_folder_is_listed():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    on_disk = _package_folders(ROOT / "core", "paimon_core") | _package_folders(
        ROOT / "paimon_cli", "paimon_cli"
    )
    assert on_disk == listed


def test_every_module_folder_is_a_package():
    for top in ("core", "paimon_cli"):
        for py in (ROOT / top).rglob("*.py"):
            assert (py.parent / "__init__.py").exists(), f"{py.parent} has modules but no __init__.py"


def test_the_public_exports_agree():
    """paimon_core's lazy exports: __all__, the name -> module map that __getattr__ imports from,
    and the imports under TYPE_CHECKING that give a type checker their types name the same things."""
    import ast

    import paimon_core

    assert paimon_core.__all__ == sorted(paimon_core._EXPORTS)
    tree = ast.parse((ROOT / "core" / "__init__.py").read_text())
    typed = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                typed.update({a.name: imp.module for a in imp.names})
    assert typed == paimon_core._EXPORTS


def test_the_type_checker_sees_core():
    """[tool.pyright] checks core/ through the symlink typecheck/src/paimon_core (see pyproject.toml)."""
    link = ROOT / "typecheck" / "src" / "paimon_core"
    assert link.is_symlink() and link.resolve() == (ROOT / "core").resolve()
