"""The docs in ``docs/`` stay in step with the code.

* Every "docs/format.md section N" a docstring or comment cites has a section N heading in
  docs/format.md, and so does every "section N" cross-reference inside that page; no file still
  cites the old, absent ``FORMAT.md`` or ``FORMAT-1X``.
* docs/architecture.md names every subpackage folder of ``core/paimon_core/`` (a new one forces a docs
  update), every module path it names exists, and its command table lists every ``paimon``
  command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMAT = ROOT / "docs" / "format.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SOURCE_DIRS = ("core", "paimon_cli", "tests", "scripts")

_NUMBER = r"\d+(?:\.\d+)*"
_CITATION = re.compile(rf"docs/format\.md,? sections? ({_NUMBER}(?:(?:, | and ){_NUMBER})*)")
_INTERNAL = re.compile(rf"\bsections? ({_NUMBER}(?:(?:, | and | to ){_NUMBER})*)")
_HEADING = re.compile(rf"^#{{2,6}} ({_NUMBER})\.? ", re.M)


def _sources():
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, " ".join(path.read_text().split())  # references may wrap across lines
    for path in sorted(ROOT.glob("*.md")):
        yield path, " ".join(path.read_text().split())


def _numbers(group: str) -> list[str]:
    return re.findall(_NUMBER, group)


def _headings() -> set[str]:
    return set(_HEADING.findall(FORMAT.read_text()))


def test_format_md_has_the_sections_the_code_cites():
    headings = _headings()
    cited = {}
    for path, text in _sources():
        for m in _CITATION.finditer(text):
            for n in _numbers(m.group(1)):
                cited.setdefault(n, []).append(str(path.relative_to(ROOT)))
    assert len(cited) >= 10, f"the citation pattern found too little ({sorted(cited)}): is it still right?"
    missing = {n: where for n, where in cited.items() if n not in headings}
    assert not missing, f"docs/format.md has no heading for these cited sections: {missing}"


def test_format_md_sections_are_numbered_0_to_15():
    top = {h for h in _headings() if "." not in h}
    assert top == {str(i) for i in range(16)}, sorted(top, key=int)


def test_format_md_cross_references_resolve():
    headings = _headings()
    text = " ".join(FORMAT.read_text().split())
    bad = sorted({n for m in _INTERNAL.finditer(text) for n in _numbers(m.group(1)) if n not in headings})
    assert not bad, f"docs/format.md refers to sections it does not have: {bad}"


def test_no_reference_to_the_old_format_file():
    old = re.compile(r"(?<![/\w])FORMAT(?:\.md|-1X)")
    stale = [
        str(p.relative_to(ROOT))
        for p, text in _sources()
        if p != Path(__file__).resolve() and old.search(text)
    ]
    assert not stale, f"cite docs/format.md instead of FORMAT.md / FORMAT-1X in: {stale}"


def test_architecture_md_names_every_core_subpackage():
    text = ARCHITECTURE.read_text()
    folders = sorted(p.parent.name for p in (ROOT / "core" / "paimon_core").glob("*/__init__.py"))
    assert folders, "no core subpackages found"
    missing = [f for f in folders if f"core/paimon_core/{f}/" not in text]
    assert not missing, f"docs/architecture.md does not describe core/paimon_core/{missing}"


def test_architecture_md_names_only_existing_modules():
    text = ARCHITECTURE.read_text()
    named = set(re.findall(r"\b((?:core|paimon_cli|tests)/[\w/]+\.py)\b", text))
    assert named, "no module paths found in docs/architecture.md"
    gone = sorted(p for p in named if not (ROOT / p).is_file())
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"


def test_architecture_md_lists_every_command():
    import typer

    from paimon_cli.app import app

    commands = typer.main.get_command(app).commands
    table = ARCHITECTURE.read_text().split("## Command -> CLI module -> core entry point", 1)[1]
    rows = {m.group(1) for m in re.finditer(r"^\| `([a-z-]+)", table, re.M)}
    missing = sorted(set(commands) - rows)
    assert not missing, f"docs/architecture.md's command table lacks: {missing}"
