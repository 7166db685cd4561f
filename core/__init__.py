"""paimon_core: a Python implementation of the Apache Paimon table format.

The library never imports the CLI (typer, rich) and imports pyspark only inside
``paimon_core.engines.spark``. Progress reaches callers through callbacks.
"""

from paimon_core.errors import PaimonError

__all__ = ["PaimonError"]
__version__ = "0.1.0"
