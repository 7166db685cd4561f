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


KIND_NAMES = ("+I", "-U", "+U", "-D")  # _VALUE_KIND 0..3 as text (Java's RowKind short strings)


def kind_text(kinds):
    """``_VALUE_KIND`` codes (an Arrow integer array) as their text (``KIND_NAMES``). pyarrow is
    imported here, not at module level: building an array at import loads pandas (pyarrow checks
    for pandas objects), which commands that never call this must not pay."""
    import pyarrow as pa

    return pa.array(KIND_NAMES).take(kinds.cast(pa.int32()))


def is_system_name(name: str) -> bool:
    return name.startswith(KEY_PREFIX) or name in SYSTEM_NAMES
