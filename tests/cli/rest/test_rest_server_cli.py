"""``paimon rest-server``'s own refusals: one line and a non-zero exit before anything listens."""

from __future__ import annotations

from tests.cli.conftest import Cli


def test_bad_port_and_prefix_are_refused(tmp_path):
    cli = Cli(tmp_path / "wh")
    (tmp_path / "wh").mkdir()
    for args, text in (
        (["--port", "0"], "bad --port 0"),
        (["--port", "70000"], "bad --port 70000"),
        (["--prefix", "a/b"], "bad --prefix"),
    ):
        r = cli("rest-server", *args, code=None)
        assert r.exit_code != 0 and text in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_a_missing_warehouse_is_refused_by_name(tmp_path):
    r = Cli(tmp_path / "nope")("rest-server", "--port", "18999", code=None)
    assert r.exit_code != 0 and "nope" in r.stderr and "Traceback" not in r.stderr
