"""How text that came from the user is shown: in messages, on a terminal, in JSON.

Ids, names and file names come from files and may hold anything: a control
character that a terminal obeys (an escape sequence can set the window title,
write a hyperlink or hide text), a line break that would end a table row, or
five million characters.  Three rules, in one place:

* :func:`quoted`: a value quoted in a message, as ``repr()`` quotes it (so
  control characters show as ``\\x1b``), cut in the middle when long, with its
  length;
* :func:`one_line`: text on one line, each run of control characters a space
  (human-readable tables and messages);
* :func:`strict_json`: JSON that strict parsers read, non-finite numbers as the
  strings ``"Infinity"``, ``"-Infinity"`` and ``"NaN"``.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["quoted", "one_line", "strict_json", "MAX_QUOTED"]

#: The longest quoted value shown whole in a message (counted on its repr).
MAX_QUOTED = 120
_HEAD = 80  # of a longer repr: its first _HEAD characters, "...", its last _TAIL
_TAIL = 20

# C0 controls (tab and line breaks too), DEL, C1 controls (U+0080-U+009F, which
# some terminals obey as escape sequences: U+009B is CSI, U+009D OSC) and the
# Unicode line and paragraph separators.  (A pattern, compiled by re's cache
# on first use, not at import.)
_CONTROLS = "[\x00-\x1f\x7f-\x9f\u2028\u2029]+"


def quoted(value: Any) -> str:
    """``repr(value)``, or for a long one its start and end with the length:
    ``'aaaa...aaa' (5,000,000 characters)``."""
    text = repr(value)
    if len(text) <= MAX_QUOTED:
        return text
    size = len(value) if isinstance(value, (str, bytes)) else len(text)
    unit = "bytes" if isinstance(value, bytes) else "characters"
    return f"{text[:_HEAD]}...{text[-_TAIL:]} ({size:,} {unit})"


def one_line(text: str) -> str:
    """*text* with each run of line breaks and other control characters as one
    space: an id from a file must not end a table row, nor send a terminal an
    escape sequence."""
    return re.sub(_CONTROLS, " ", text)


def strict_json(data: Any, **options: Any) -> str:
    """``json.dumps(data, **options)`` that strict parsers accept: the
    non-finite floats that Python writes as the bare words ``Infinity`` and
    ``NaN`` (not JSON) become the strings ``"Infinity"``, ``"-Infinity"`` and
    ``"NaN"`` (the encoding of Protocol Buffers' JSON; ``float()`` in Python,
    ``Number()`` in JavaScript and ``Double.parseDouble`` in Java read them)."""
    import json  # (only for JSON output: not at import)

    return json.dumps(_finite(data), allow_nan=False, **options)


def _finite(x: Any) -> Any:
    if isinstance(x, float):
        if math.isfinite(x):
            return x
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x
