"""Warnings that point at the user's line.

A warning raised deep inside irmetrics (a reader's generator, the scorer)
should name the line of the caller's code that asked for the work, whatever
the depth of the call: :func:`warn` walks out of the package's own frames
instead of counting them.
"""

import os
import sys
import warnings
from typing import Type

from .errors import IrmetricsWarning

__all__ = ["warn"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: Type[Warning] = IrmetricsWarning) -> None:
    """``warnings.warn`` with the stack level of the first frame outside irmetrics."""
    frame = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)
