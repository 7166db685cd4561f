"""Ctrl-C (or any error) while FileIO writes the temporary file of an atomic create or of a hint
replacement leaves no temporary file behind: the random-SIGINT test of tests/safety found
``snapshot/.snapshot-N.<uuid>.tmp`` left by a Ctrl-C during the snapshot create."""

from __future__ import annotations

import os

import pytest

from paimon_core.storage.file_io import FileIO


def _interrupt_fsync(monkeypatch):
    def fsync(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", fsync)


def _interrupt_replace(monkeypatch):
    def replace(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize(
    "write, interrupt",
    [
        (lambda io, p: io.write_if_absent(p, b"snapshot"), _interrupt_fsync),
        (lambda io, p: io.overwrite_hint(p, b"7"), _interrupt_replace),
    ],
    ids=["write_if_absent", "overwrite_hint"],
)
def test_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch, write, interrupt):
    io = FileIO(str(tmp_path))
    target = str(tmp_path / "snapshot" / "snapshot-1")
    os.makedirs(os.path.dirname(target))
    interrupt(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write(io, target)
    monkeypatch.undo()
    assert os.listdir(tmp_path / "snapshot") == []
    assert io.write_if_absent(target, b"snapshot")  # and the create still works
