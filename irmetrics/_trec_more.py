"""trec_eval's other input files: preferences (``-R prefs``) and z-score
tables (``-Z``); and cwl-eval's cost files (its ``-c``).

Read as :mod:`irmetrics.trec` reads qrels and runs: a path or an open file,
gzip or not; fields split on ASCII white space; blank lines and lines whose
first field starts with ``#`` skipped (trec_eval 10.0 skips ``#`` lines,
9.0.8 stops on them); an error names the file and the line.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Dict, Iterator, List, Tuple

from .errors import TrecFormatError
from .trec import _number, _open_lines

if TYPE_CHECKING:
    from .trec import PathOrFile

__all__ = ["read_prefs", "read_zscores", "read_costs"]


def _rows(source: PathOrFile, columns: str) -> Iterator[Tuple[str, int, List[bytes]]]:
    """``(file name, line number, fields)`` of each line that is not blank
    or a comment; a line without the fields of *columns* is an error."""
    width = len(columns.split())
    with _open_lines(source) as (stream, name):
        for lineno, line in enumerate(stream.read().split(b"\n"), 1):
            fields = line.split()
            if not fields or fields[0].startswith(b"#"):
                continue
            if len(fields) != width:
                raise TrecFormatError(f"expected {width} columns ({columns}), got "
                                      f"{len(fields)}", name, lineno)
            yield name, lineno, fields


def _field(fields: List[bytes], name: str, lineno: int, what: str) -> str:
    try:
        return b" ".join(fields).decode("utf-8")
    except UnicodeDecodeError:
        raise TrecFormatError(f"{what} is not valid UTF-8", name, lineno) from None


def _float(text: bytes, name: str, lineno: int, what: str) -> float:
    try:
        return float(_number(text, float))
    except ValueError:
        raise TrecFormatError(f"{what} must be a number (got {text!r})", name, lineno) from None


def read_prefs(source: PathOrFile) -> Dict[str, List[Tuple[str, str, str, float]]]:
    """A preferences file, ``qid jg jsg docno level`` lines (trec_eval's
    ``-R prefs``): ``{qid: [(jg, jsg, docno, level)]}`` in file order."""
    out: Dict[str, List[Tuple[str, str, str, float]]] = {}
    for name, lineno, fields in _rows(source, "qid jg jsg docno level"):
        qid, jg, jsg, doc = _field(fields[:4], name, lineno, "an id").split(" ")
        level = _float(fields[4], name, lineno, "the level")
        out.setdefault(qid, []).append((jg, jsg, doc, level))
    return out


def read_zscores(source: PathOrFile) -> Dict[str, Dict[str, Tuple[float, float]]]:
    """A z-score table, ``qid measure mean deviation`` lines (trec_eval's
    ``-Z``): ``{qid: {measure: (mean, deviation)}}``; the last line of a
    (query, measure) given twice counts."""
    out: Dict[str, Dict[str, Tuple[float, float]]] = {}
    for name, lineno, fields in _rows(source, "qid measure mean deviation"):
        qid, measure = _field(fields[:2], name, lineno, "an id").split(" ")
        mean = _float(fields[2], name, lineno, "the mean")
        out.setdefault(qid, {})[measure] = (mean, _float(fields[3], name, lineno, "the deviation"))
    return out


def read_costs(costs: PathOrFile, run: PathOrFile) -> Dict[str, Dict[str, float]]:
    """cwl-eval's cost file, ``element_type cost`` lines (its ``-c``), applied
    to a run whose second column names each document's element type (cwl-eval's
    result file): ``{qid: {docno: cost}}``, the costs ``evaluate(costs=)``
    takes; a document of a type the file lacks costs 1 (cwl-eval's default);
    the last line of a type given twice counts."""
    table: Dict[str, float] = {}
    for name, lineno, fields in _rows(costs, "element_type cost"):
        cost = _float(fields[1], name, lineno, "the cost")
        if not 0 <= cost < math.inf:
            raise TrecFormatError(f"the cost must be a finite number >= 0 (got {cost!r})",
                                  name, lineno)
        table[_field(fields[:1], name, lineno, "the element type")] = cost
    out: Dict[str, Dict[str, float]] = {}
    for name, lineno, fields in _rows(run, "qid element_type docno rank score tag"):
        qid, kind, doc = _field(fields[:3], name, lineno, "an id").split(" ")
        if kind in table:
            out.setdefault(qid, {})[doc] = table[kind]
    return out
