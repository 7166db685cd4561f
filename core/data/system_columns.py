"""The system columns of Paimon's data files and reads, named once.

Key-value files (primary-key tables) store ``_KEY_<k>`` copies of the key columns, then
``_SEQUENCE_NUMBER`` and ``_VALUE_KIND`` (0..3 = +I, -U, +U, -D), then the value columns.
``_ROW_ID`` is Paimon 1.3+'s row-tracking column: with ``_SEQUENCE_NUMBER`` it is a readable
system column of row-tracking append tables (``TRACKING_COLUMNS``, ``read/row_tracking.py``). ``_ROW_POS`` is ours: a row's position in its
data file, carried through a read to apply deletion vectors; it is never written."""

KEY_PREFIX = "_KEY_"
SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
ROW_ID = "_ROW_ID"
ROW_POS = "_ROW_POS"

SYSTEM_NAMES = (SEQ, KIND, ROW_ID)
TRACKING_COLUMNS = (
    ROW_ID,
    SEQ,
)  # what ``--select`` reads from row-tracking tables  # besides ``_KEY_*``: names a user column may not take


def is_system_name(name: str) -> bool:
    return name.startswith(KEY_PREFIX) or name in SYSTEM_NAMES
