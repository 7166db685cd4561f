"""The Spark engine: the only package that imports pyspark, always lazily.

``engine`` (``SparkEngine``: plans on the driver, runs core writers, compactors and readers on
executors, commits once on the driver), ``session`` (local, standalone or Connect sessions),
``tasks`` (what executors run), ``plan`` (work split into tasks), ``frames`` (Arrow <-> DataFrame,
shipping the core to a cluster), ``sql`` (Spark SQL with Paimon's time-travel names), ``source``
(the Python data source ``paimon``), ``types``, ``errors``, ``progress``.

The public names ``SparkEngine``, ``register`` and ``to_dataframe`` resolve on first use, so that
an executor importing ``tasks`` does not load the driver's modules."""

_PUBLIC = {"SparkEngine": "engine", "register": "engine", "to_dataframe": "engine"}


def __getattr__(name: str):
    if name in _PUBLIC:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    raise AttributeError(name)
