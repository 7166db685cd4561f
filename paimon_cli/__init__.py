"""paimon-cli: the ``paimon`` command over Apache Paimon tables (the library is ``paimon_core``)."""

__version__ = "0.1.0"
