"""The harness's Maven Central fetch (tests/interop/harness/maven.py): a jar is moved into the
cache only when its digest (SHA-1 or SHA-256) equals the pinned one. Served from a file:// copy
of a repository layout, so no network is needed."""

from __future__ import annotations

import hashlib

import pytest

from tests.interop.harness import maven
from tests.interop.harness._common import InteropError


@pytest.fixture
def repo(tmp_path, monkeypatch):
    d = tmp_path / "repo" / "org" / "example" / "lib" / "1.0"
    d.mkdir(parents=True)
    (d / "lib-1.0.jar").write_bytes(b"jar bytes")
    monkeypatch.setattr(maven, "MAVEN", (tmp_path / "repo").as_uri())
    return tmp_path


@pytest.mark.parametrize("algo", ["sha1", "sha256"])
def test_a_jar_with_the_pinned_digest_is_fetched(repo, algo):
    jar = maven.MavenJar("org.example", "lib", "1.0", hashlib.new(algo, b"jar bytes").hexdigest())
    (path,) = maven.fetch_jars(repo / "cache", (jar,))
    assert path.read_bytes() == b"jar bytes" and path.name == "lib-1.0.jar"


def test_a_jar_with_another_digest_is_refused_and_not_kept(repo):
    jar = maven.MavenJar("org.example", "lib", "1.0", hashlib.sha256(b"other").hexdigest())
    with pytest.raises(InteropError, match="is not the pinned"):
        maven.fetch_jars(repo / "cache", (jar,))
    assert list((repo / "cache").iterdir()) == []
