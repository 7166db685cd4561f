"""The commit layer: where a table's changes become one snapshot, or none.

``file_store_commit``: ``FileStoreCommit`` turns CommitMessages into one snapshot (``snapshot-N``
created only if absent, under the catalog's lock), retrying on a lost race, or deletes the
messages' files. ``checks``: the conflict checks of each attempt against the latest snapshot.
"""
