"""The errors irmetrics raises.

Every error is a subclass of :class:`IrmetricsError`, which is a
:class:`ValueError`, so ``except ValueError`` keeps working for callers that
do not care which kind of bad input they gave.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from types import FrameType
from typing import Any, Optional, Sequence, Tuple, Type

from ._text import quoted

__all__ = [
    "IrmetricsError",
    "InvalidArgumentError",
    "InvalidLabelError",
    "UnorderedRankingError",
    "UnknownMeasureError",
    "TrecFormatError",
    "DuplicateEntryError",
    "UndefinedStatisticError",
    "IrmetricsWarning",
]


#: The longest message an error keeps whole (values quoted in a message are
#: cut by :func:`~irmetrics._text.quoted`; this catches any that is not).
MAX_MESSAGE = 2000


class IrmetricsError(ValueError):
    """Base class of every error irmetrics raises on bad input."""

    def __init__(self, *args: Any) -> None:
        if args and isinstance(args[0], str) and len(args[0]) > MAX_MESSAGE:
            message = args[0]
            cut = len(message) - MAX_MESSAGE
            args = (f"{message[:MAX_MESSAGE - 500]}... ({cut:,} characters cut) ..."
                    f"{message[-500:]}",) + args[1:]
        super().__init__(*args)

    def __reduce__(self) -> Tuple[Any, ...]:
        # Picklable (errors cross process boundaries): rebuilt from its
        # constructor's arguments, which a subclass taking other arguments
        # than the message keeps in _given; then its attributes.
        return (type(self), getattr(self, "_given", self.args), self.__dict__)


class InvalidArgumentError(IrmetricsError):
    """An argument has the wrong type or a value outside its domain."""


class InvalidLabelError(InvalidArgumentError):
    """A relevance label is negative, NaN, infinite or not a number.

    ``position`` is the 0-based index of the offending label.
    """

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position
        self._given = (message, position)


class UnorderedRankingError(InvalidArgumentError, TypeError):
    """A ranking given as something without a rank order: a set, a dict (or
    other mapping, a dict view, a Counter) or a DataFrame.

    Iterating a set gives hash order and iterating a dict or a DataFrame gives
    its keys, so the value computed would silently be that of another ranking.
    Both a :class:`TypeError` and an :class:`InvalidArgumentError` (a
    :class:`ValueError`), so either ``except`` clause catches it.
    """


class UnknownMeasureError(IrmetricsError):
    """A measure name that the registry does not know.

    ``suggestions`` holds the closest known names, best first.
    """

    def __init__(self, name: str, suggestions: Sequence[str] = ()) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        message = f"unknown measure {quoted(name)}"
        if self.suggestions:
            message += "; did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(message)
        self._given = (name, self.suggestions)


class TrecFormatError(IrmetricsError):
    """A TREC qrels or run file (or record) that cannot be read.

    ``source`` names the file (or ``"<records>"``), ``line`` is the 1-based line
    number, or ``None`` when the problem is not tied to one line.
    """

    def __init__(self, message: str, source: str, line: Optional[int] = None) -> None:
        self.source = source
        self.line = line
        self.reason = message
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {message}")
        self._given: Tuple[Any, ...] = (message, source, line)


class DuplicateEntryError(TrecFormatError):
    """A document id given twice for the same query (and subtopic).

    ``first_line`` is where it was first seen, ``line`` where it was seen again.
    """

    def __init__(
        self,
        source: str,
        first_line: Optional[int],
        line: Optional[int],
        qid: str,
        docid: str,
        subtopic: Optional[str] = None,
    ) -> None:
        self.first_line = first_line
        self.qid = qid
        self.docid = docid
        self.subtopic = subtopic  # set for a subtopic qrels entry (diversity)
        where = f"query {quoted(qid)}"
        if subtopic is not None:
            where += f", subtopic {quoted(subtopic)}"
        message = f"document {quoted(docid)} appears twice for {where}"
        if first_line is not None and line is not None:
            message += f" (lines {first_line} and {line})"
        super().__init__(message, source, line)
        self._given = (source, first_line, line, qid, docid, subtopic)


class UndefinedStatisticError(InvalidArgumentError):
    """A test statistic that the data leave undefined, for example a paired t
    test on differences that are all equal (their standard deviation is 0)."""


class IrmetricsWarning(UserWarning):
    """Base class of every warning irmetrics emits: something was left out of
    an evaluation (for example, run queries without judgments); the result is
    still correct for what was evaluated.

    Filter them all with ``warnings.simplefilter("ignore", IrmetricsWarning)``
    (or ``"error"`` to make them fail a test run).
    """


def _warn(message: str, category: Type[IrmetricsWarning] = IrmetricsWarning) -> None:
    """Emit *message* as a warning attributed to the caller's line.

    The line shown is the first frame outside the irmetrics package, whichever
    public entry point (evaluate(), compare(), ...) and however many internal
    calls led here: a fixed ``stacklevel`` is right for one call path only.
    """
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level = 2  # warnings.warn's count: 1 is this function, 2 its caller
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def _optional_import(module: str, purpose: str, extra: str, library: str = "") -> Any:
    """*module* imported, or an :class:`ImportError` naming the extra that
    installs *library* (by default the extra's name): "*purpose* needs
    *library*, which is not installed: pip install 'irmetrics-eval[*extra*]'".
    Typed ``Any``: the calls into an optional library go unchecked."""
    library = library or extra
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{purpose} needs {library}, which is not installed: "
                          f"pip install 'irmetrics-eval[{extra}]'", name=library) from None
