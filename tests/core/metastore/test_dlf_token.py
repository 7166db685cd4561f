"""DLF tokens and where a client loads them: the JSON Java reads, the refresh rule (again within an
hour of expiry, never without one, and ours: again when the file changes), the file's retries."""

from __future__ import annotations

import os

import pytest

from paimon_core.catalog.metastore.rest.dlf_token import DlfCredentials, DlfToken, Fixed, TokenFile, due
from paimon_core.errors import CatalogUnavailable

NOW_MS = 1_700_000_000_000
HOUR = 3_600_000


def _json(key: str, expiration: str | None = None) -> str:
    exp = f', "Expiration": "{expiration}"' if expiration else ""
    return f'{{"AccessKeyId": "{key}", "AccessKeySecret": "s-{key}", "SecurityToken": "t"{exp}, "Code": "Success"}}'


def test_the_token_json_java_reads():
    t = DlfToken.from_json(_json("k", "2023-11-14T22:13:20Z"))
    assert (t.access_key_id, t.access_key_secret, t.security_token, t.expiration_ms) == (
        "k",
        "s-k",
        "t",
        NOW_MS,
    )
    assert DlfToken.from_json('{"AccessKeyId": "k", "AccessKeySecret": "s"}').expiration_ms is None
    for bad in (
        '{"AccessKeyId": "k"}',
        "not json {secret}",
        '{"AccessKeyId": "k", "AccessKeySecret": "s", "Expiration": "soon"}',
    ):
        with pytest.raises(ValueError) as e:
            DlfToken.from_json(bad)
        assert "secret}" not in str(e.value)
    assert "s-k" not in repr(t)


@pytest.mark.parametrize(
    "expiration_ms, is_due",
    [
        (None, False),
        (NOW_MS + 2 * HOUR, False),
        (NOW_MS + HOUR + 1, False),
        (NOW_MS + HOUR - 1, True),
        (NOW_MS - 1, True),
    ],
)
def test_a_token_is_loaded_again_within_an_hour_of_its_expiry(expiration_ms, is_due):
    assert due(DlfToken("k", "s", None, expiration_ms), NOW_MS) is is_due
    assert due(None, NOW_MS)


def test_a_token_file_is_read_again_when_due_or_changed(tmp_path):
    path = tmp_path / "token.json"
    path.write_text(_json("one"))
    file = TokenFile(str(path))
    reads = []
    load = file.load
    file.load = lambda: reads.append(1) or load()  # type: ignore[method-assign]
    creds = DlfCredentials(file, clock=lambda: NOW_MS / 1000)
    assert creds.token().access_key_id == "one" and creds.token().access_key_id == "one"
    assert len(reads) == 1  # no expiry, unchanged: read once
    path.write_text(_json("two-rotated"))  # another size: a change even within the mtime's tick
    assert creds.token().access_key_id == "two-rotated" and len(reads) == 2
    path.write_text(_json("three", "2023-11-14T22:43:20Z"))  # expires in 30 min: read on every use
    creds.token()
    creds.token()
    assert len(reads) == 4


def test_a_token_file_is_tried_five_times_and_its_text_never_shown(tmp_path):
    path = tmp_path / "token.json"
    path.write_text('{"AccessKeyId": "k", "AccessKeySecret": "half-writ')
    pauses: list[float] = []
    with pytest.raises(CatalogUnavailable) as e:
        TokenFile(str(path), sleep=pauses.append).load()
    assert pauses == [1, 2, 3, 4] and "half-writ" not in str(e.value)
    pauses.clear()
    with pytest.raises(CatalogUnavailable, match="cannot read"):
        TokenFile(str(tmp_path / "none.json"), sleep=pauses.append).load()

    def rotated(seconds):  # the writer finishes while the reader waits
        path.write_text(_json("k"))
        os.utime(path)

    assert TokenFile(str(path), sleep=rotated).load().access_key_id == "k"


def test_keys_from_the_options_are_loaded_once():
    creds = DlfCredentials(Fixed(DlfToken("k", "s")))
    assert creds.token() is creds.token()
