"""The layout: each import name is a folder of that name (``paimon_core`` in the source root
``core/``, ``paimon_cli`` at the top), every module folder is a package that setuptools' package
discovery finds, and the type checker sees the core by path."""

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


def test_every_package_folder_is_found():
    """What setuptools' discovery puts in the wheel, from [tool.setuptools.packages.find]."""
    from setuptools import find_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = set()
    for where in conf["where"]:
        found |= set(find_packages(str(ROOT / where), include=conf["include"]))
    on_disk = _package_folders(ROOT / "core" / "paimon_core", "paimon_core") | _package_folders(
        ROOT / "paimon_cli", "paimon_cli"
    )
    assert on_disk == found


def test_every_import_name_resolves_to_its_folder():
    """``paimon_core`` imports from core/paimon_core (no mapping, no import hook in between)."""
    import paimon_cli
    import paimon_core

    assert Path(paimon_core.__file__).resolve() == ROOT / "core" / "paimon_core" / "__init__.py"
    assert Path(paimon_cli.__file__).resolve() == ROOT / "paimon_cli" / "__init__.py"


def test_every_module_folder_is_a_package():
    for top in ("core/paimon_core", "paimon_cli"):
        for py in (ROOT / top).rglob("*.py"):
            assert (py.parent / "__init__.py").exists(), f"{py.parent} has modules but no __init__.py"


def test_the_public_exports_agree():
    """paimon_core's lazy exports: __all__, the name -> module map that __getattr__ imports from,
    and the imports under TYPE_CHECKING that give a type checker their types name the same things."""
    import ast

    import paimon_core

    assert paimon_core.__all__ == sorted(paimon_core._EXPORTS)
    tree = ast.parse((ROOT / "core" / "paimon_core" / "__init__.py").read_text())
    typed = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                typed.update({a.name: imp.module for a in imp.names})
    assert typed == paimon_core._EXPORTS


def test_the_type_checker_sees_core():
    """[tool.pyright] checks the package in its source root by path: no symlink, no mapping."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyright"]
    assert conf["include"] == ["core/paimon_core"] and conf["extraPaths"] == ["core"]
    assert not list((ROOT / "typecheck").rglob("paimon_core"))
