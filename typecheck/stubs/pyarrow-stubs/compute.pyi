# pyarrow.compute makes its kernels (pc.equal, pc.and_, ...) module attributes at import time, by a
# loop over the C++ function registry, so a checker reading compute.py sees none of them; and the
# names it imports come from the Cython module _compute, which has no stubs. This stub says what
# the checker can know: every attribute of the module exists and is untyped. This is a partial
# stub package (py.typed says so): pyright takes every other pyarrow module from its sources.
from typing import Any

def __getattr__(name: str) -> Any: ...
