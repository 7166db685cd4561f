"""Every answer of ``paimon rest-server`` in the REST tests is validated against Paimon's OpenAPI
spec (``tests/rest_support.SpecClient``), pinned by SHA-256 and downloaded into the interop cache.
Where the spec cannot be downloaded (a machine that reaches package registries but not GitHub),
the REST tests still check behaviour, and this test reports that the validation did not run."""

from __future__ import annotations

import pytest

from tests.rest_support import SpecClient


def test_answers_are_validated_against_the_spec(rest_server):
    if SpecClient.unavailable is not None:
        pytest.skip(f"answers not validated against the OpenAPI spec: {SpecClient.unavailable}")
    assert SpecClient._openapi is not None
    answer = SpecClient(rest_server).call("GET", "/v1/config", query="warehouse=paimon")
    assert answer.status == 200
