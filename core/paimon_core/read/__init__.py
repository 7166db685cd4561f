"""The read path: planning (scan), reading splits with merge-on-read, predicates, and diffs between snapshots."""
