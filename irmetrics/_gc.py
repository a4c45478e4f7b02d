"""The cyclic garbage collector, paused while large tables are built.

Reading a run or qrels file and scoring it create hundreds of thousands of
small dicts and lists, none of them in a reference cycle.  Each allocation
counts toward the collector's next pass, and each pass walks every container
still alive (the tables being built): a sizeable part of a large
evaluation's time, for nothing to collect.  Reference counting still frees
everything at once; only cycles wait until the collector is back on.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Turn the collector off for the block, if it was on; back on after.

    Nested uses leave it to the outermost.  A forked worker inherits the
    paused state, which is what its work wants too.  The switch is the
    process's: other threads run without the collector meanwhile (documented
    in the large-runs guide).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
