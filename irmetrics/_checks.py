"""Argument validation shared by every public function.

Validation happens once, at the boundary; the private kernels in the other
modules trust what these functions hand them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Set, ValuesView
from numbers import Integral, Real
from typing import Any, Iterable, List, Optional, Sequence, Union

from .errors import InvalidArgumentError, InvalidLabelError, UnorderedRankingError

Label = Optional[Union[int, float]]
_FLOAT_MAX = sys.float_info.max


def kind_of(value: Any) -> str:
    return type(value).__name__


# === Rankings are ordered ===

# DataFrames iterate over their column names, as a dict over its keys.
_TABLES = {("pandas", "DataFrame"), ("polars", "DataFrame"), ("polars", "LazyFrame")}

# Containers whose iteration order is not a ranking, tried in this order (a dict's
# keys and items are Sets): what the message says after the container's kind.
_UNORDERED = (
    (Mapping, " (iterating it gives its keys); pass the values in rank order, e.g. "
     "[d[doc] for doc in ranking], or list(d.values()) if the mapping is in rank order"),
    (ValuesView, " view (its order is the mapping's, not necessarily a ranking's); pass "
     "[d[doc] for doc in ranking], or list(d.values()) if the mapping is in rank order"),
    (Set, ", which has no order (and holds each value once); pass a list in rank order, "
     "e.g. list(...) of the ranking or sorted(...) by rank"),
)


_RANKING = "a sequence of relevance labels in rank order (a list or tuple, rank 1 first)"


def check_ordered(values: Any, name: str, what: str = _RANKING) -> None:
    """Refuse a container without a rank order: a set, a mapping, a dict view
    or a DataFrame, whose iteration order is not the ranking the caller means
    (hash order, or the keys).  Sequences, generators and other iterables
    pass: their order is taken as the rank order.
    """
    t = type(values)
    root = t.__module__.partition(".")[0]
    start = f"{name!r} must be {what}, not a"
    if (root, t.__name__) in _TABLES:
        raise UnorderedRankingError(
            f"{start} {root} {t.__name__} (iterating it gives its column names); pass "
            f"one column in rank order, e.g. df.sort_values('rank')['label'].tolist() "
            f"(pandas) or df.sort('rank')['label'].to_list() (polars)"
        )
    for kind, why in _UNORDERED:
        if isinstance(values, kind):
            raise UnorderedRankingError(f"{start} {kind_of(values)}{why}")


def check_list(values: Any, name: str, must: str, what: str = _RANKING) -> List[Any]:
    """*values*, any iterable in order, as a new list.  Refuses str and bytes
    and what is not iterable ("*name* must be *must*"), and containers
    without an order ("*name* must be *what*", :func:`check_ordered`)."""
    if type(values) is not list:
        if isinstance(values, (str, bytes)):
            raise InvalidArgumentError(f"{name!r} must be {must} (got {kind_of(values)})")
        check_ordered(values, name, what)
    try:
        return list(values)
    except TypeError:
        raise InvalidArgumentError(f"{name!r} must be {must} (got {kind_of(values)})") from None


def check_labels(
    labels: Iterable[Any], name: str = "labels", *, allow_bool: bool = True
) -> List[Label]:
    """Return *labels* as a new list of ints, floats and ``None``.

    Accepts any iterable in rank order (lists, tuples, generators, numpy
    arrays without importing numpy); refuses sets, mappings and DataFrames
    (:func:`check_ordered`).  Rejects negative, NaN and infinite values and
    anything that is not a real number, naming the position.  Bools (also
    numpy's) are numbers here: a relevance mask, True counting as 1; with
    ``allow_bool=False`` they are refused.
    """
    items = check_list(labels, name, "an iterable of relevance labels")
    out: List[Label] = items
    for i, x in enumerate(items):
        t = type(x)
        if (t is int or t is float) and 0 <= x <= _FLOAT_MAX:
            continue  # the common case, checked first: a plain label in range
        if x is not None:
            out[i] = _coerce_label(x, name, i, allow_bool)
    return out


def _coerce_label(x: Any, name: str, i: int, allow_bool: bool = True) -> Union[int, float]:
    where = f"{name}[{i}] (rank {i + 1})"
    if isinstance(x, bool) or kind_of(x) in ("bool_", "bool"):
        if not allow_bool:
            raise InvalidLabelError(
                f"{where} must be a number or None, not a bool (got {x!r}); give graded "
                f"labels, e.g. int(x)",
                i,
            )
        return int(x)  # a relevance mask: True is 1, False is 0
    if isinstance(x, Integral):
        value: Union[int, float] = int(x)
    elif isinstance(x, Real):
        value = float(x)
    else:
        raise InvalidLabelError(f"{where} must be a number or None (got {kind_of(x)} {x!r})", i)
    if not 0 <= value <= _FLOAT_MAX:  # negative, NaN, infinite, or an int too large for a float
        raise InvalidLabelError(f"{where} must be a finite non-negative number (got {x!r})", i)
    return value


def check_k(k: Any, name: str = "k", *, optional: bool = True) -> Optional[int]:
    """Check a rank cutoff: ``None`` (when *optional*) or an int >= 1."""
    if k is None:
        if optional:
            return None
        raise InvalidArgumentError(f"{name!r} must be a positive int (got None)")
    return check_int(k, name, 1, what="a positive int")


def is_real(value: Any) -> bool:
    """Whether *value* is a real number (bools are not)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def as_number(value: Any) -> float:
    """*value* as a float: NaN when it is not a real number, inf when it
    lies beyond the largest float (a huge int; no check accepts either)."""
    try:
        return float(value) if is_real(value) else math.nan
    except OverflowError:
        return math.inf


def shown(value: Any) -> str:
    """*value* as a message shows it: with its kind when it is not a number."""
    return repr(value) if is_real(value) else f"{kind_of(value)} {value!r}"


def check_finite(value: Any, name: str) -> float:
    """Check a finite number (bools rejected), named in messages as *name*
    itself (``x[1]``, or where it was found)."""
    v = as_number(value)
    if not math.isfinite(v):
        raise InvalidArgumentError(f"{name} must be a finite number (got {value!r})")
    return v


def check_positive_real(value: Any, name: str) -> float:
    """Check a finite number > 0 (bools rejected)."""
    v = as_number(value)
    if not (0.0 < v < math.inf):
        raise InvalidArgumentError(
            f"{name!r} must be a positive finite number (got {shown(value)})"
        )
    return v


def check_rel(rel: Any) -> Union[int, float]:
    """Check a relevance threshold: a finite number > 0."""
    v = check_positive_real(rel, "rel")
    return int(rel) if isinstance(rel, Integral) else v


def check_probability(p: Any, name: str = "p", interval: str = "(0, 1)") -> float:
    """Check a number in *interval*: "(0, 1)", "(0, 1]" or "[0, 1]" (bools rejected)."""
    v = as_number(p)
    above = v >= 0.0 if interval[0] == "[" else v > 0.0
    below = v <= 1.0 if interval[-1] == "]" else v < 1.0
    if not (above and below):
        raise InvalidArgumentError(f"{name!r} must be a number in {interval} (got {shown(p)})")
    return v


def check_n_relevant(n_relevant: Any, found: int) -> int:
    """Check ``n_relevant``: ``None`` gives *found*; else an int >= *found*."""
    if n_relevant is None:
        return found
    n = check_int(n_relevant, "n_relevant", 0, what="a non-negative int")
    if n < found:
        raise InvalidArgumentError(
            f"'n_relevant' must be at least the number of relevant labels given, {found} "
            f"(got {n})"
        )
    return n


def check_int(value: Any, name: str, minimum: int, *, what: str = "") -> int:
    """Check an int >= *minimum* (bools rejected), named in messages as *what*
    (by default "an int >= minimum")."""
    what = what or f"an int >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InvalidArgumentError(f"{name!r} must be {what} (got {kind_of(value)} {value!r})")
    if value < minimum:
        raise InvalidArgumentError(f"{name!r} must be {what} (got {value!r})")
    return int(value)


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Check one of a few named options: "'method' must be one of 'a', 'b' (got 'c')"."""
    if value not in choices:
        raise InvalidArgumentError(
            f"{name!r} must be one of {', '.join(map(repr, choices))} (got {value!r})"
        )
    return str(value)
