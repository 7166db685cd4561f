"""Table options: the one registry of what this project implements, and the safety net for the rest.

Options are stored in the schema file as strings. Every module reads them through
:class:`CoreOptions` (typed, validated, registry defaults); no module parses option strings itself.

Three kinds of keys (the invariant: an option that changes which rows a reader must return or how a
writer must write is either implemented here or refused by name, never ignored):

* **implemented** (:data:`registry.OPTIONS` and :data:`registry.FIELD_OPTIONS`): typed, range-checked, with Paimon's
  defaults. Values this project does not implement (``file.format=orc`` while only Parquet is
  written, ``bucket=-2``...) are listed in :data:`registry.UNSUPPORTED` and refused like unsupported keys.
* **unsupported** (:data:`registry.UNSUPPORTED`): Paimon options whose effect this project does not implement
  and that change rows or layout. Refused at create-table/alter-table, and by every read or write of a
  table that has them (:func:`validation.check_supported`), each with its own reason. Newer features whose
  refusal depends on more than one option value (table ``type``, data evolution, row tracking,
  ``bucket-function.type``, column defaults, per-file ``_WRITE_COLS``) are checked by
  ``paimon_core.metadata.features``.
* **harmless**: every other key Java Paimon knows (:data:`paimon_core.options.keys.PAIMON_OPTION_KEYS`):
  tuning of Java engines, caches, Flink behaviour. Kept and ignored, as Paimon keeps unknown keys.
  A key that is none of these but is close to a known key is a typo ("did you mean").

Modules, one concept each: ``registry`` (every key: implemented with its kind and default, or
refused with its reason), ``values`` (the text of a value of each kind: sizes, durations,
booleans, enums), ``merge_engine`` (``MergeEngineKind``), ``validation`` (the checks at
create-table/alter-table and the refusal of unsupported options on reads and writes) and
``core_options`` (``CoreOptions``, the typed view every module reads options through), ``view``
(``OptionView``: ``get(option)`` of any dict of option strings) and ``catalog_options`` (the typed
options of the JDBC, Hive and REST catalogs).

Every option is an ``Option[T]`` constant (``registry.BUCKET: Option[int]``), as Java's
``ConfigOption<T>``: a read names its option, so a misspelt one fails at import and the type checker
knows the type of every value a table's behaviour depends on.
"""
