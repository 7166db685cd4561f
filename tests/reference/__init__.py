"""Independent references for the tests: plain-Python models that know nothing of paimon_core."""
