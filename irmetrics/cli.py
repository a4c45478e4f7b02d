"""The command line: ``irmetrics QRELS RUN``, trec_eval's output from pure Python,
and ``irmetrics compare QRELS RUN1 RUN2 ...``, significance tests between runs.

Exit codes: 0 success, 1 usage error, 2 bad input (a file, a measure name),
130 interrupted.  Errors are one line on standard error, never a traceback.
"""

import argparse
import csv
import io
import json
import os
import sys
import time
import warnings
from typing import Any, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from . import __version__
from .compare import ROW_KEYS, TESTS, compare
from .data import Qrels, Run
from .errors import IrmetricsError, IrmetricsWarning, UnknownMeasureError
from .evaluate import Evaluation, _evaluate
from .measures import (
    FAMILIES,
    Measure,
    expand_trec_argument,
    parse_measure,
)
from .stats import CORRECTIONS
from .tie_report import tie_report
from .ties import check_measure, check_ties

__all__ = ["main", "format_trec"]

_ORDER = {f.key: i for i, f in enumerate(FAMILIES)}

_DESCRIPTION = """\
Evaluate a TREC run against qrels, printing what trec_eval 9.0.8 prints.

Measures (-m) take trec_eval's forms (map, P.5,10, ndcg_cut.10, official,
all_trec) and ir_measures-style names (nDCG@10, AP, P(rel=2)@5, RBP(p=0.8)).
Without -m, trec_eval's official measures are printed.

To compare runs with significance tests: irmetrics compare QRELS RUN1 RUN2 ...
(see 'irmetrics compare --help').
"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> "Any":
        raise _UsageError(message)


def _evaluation_options(p: argparse.ArgumentParser, complete_help: str) -> None:
    """trec_eval's options that change what is evaluated (both commands take them)."""
    p.add_argument("-c", "--complete", action="store_true", help=complete_help)
    p.add_argument("-l", "--level", type=int, default=1, metavar="LEVEL",
                   help="relevance level: judgments >= LEVEL are relevant (default 1)")
    p.add_argument("-M", "--depth", type=int, default=None, metavar="DEPTH",
                   help="evaluate only the top DEPTH documents of each query")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="drop unjudged documents before evaluating")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="irmetrics",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (4 columns; .gz read too)")
    p.add_argument("run", metavar="RUN", help="TREC run file (6 columns); '-' reads standard input")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help="a measure to print (repeatable; default: official)")
    p.add_argument("-q", "--query", action="store_true", help="print per-query values too")
    p.add_argument("-n", "--nosummary", action="store_true",
                   help="do not print the summary over all queries")
    _evaluation_options(
        p, "average over every qrels query; one missing from the run scores 0"
    )
    p.add_argument("--format", choices=("trec", "json", "csv"), default="trec",
                   help="output format (default: trec, byte-identical to trec_eval)")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="processes for a large run file (default: automatic, up to 2)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line on standard error (shown only on a terminal)")
    p.add_argument("--ranked-list", action="store_true",
                   help="RUN has two columns, 'qid docid', in rank order")
    p.add_argument("--ties", default="trec_eval", metavar="MODE",
                   help="order of tied scores: trec_eval (default: by document id), "
                        "expected, best or worst (see 'irmetrics ties --help')")
    p.add_argument("--version", action="version", version=f"irmetrics {__version__}")
    return p


def _measures(args: Sequence[str]) -> List[Tuple[str, Measure]]:
    """Resolve -m arguments into (printed name, measure), in trec_eval's order.

    Measures given in trec_eval's forms print under trec_eval's names (also
    ``set_F.0.5`` or ``ndcg.1=2``, which trec_eval prints as ``set_F`` and
    ``ndcg``) and in trec_eval's order; the others follow, as given.
    """
    if not args:
        args = ["official"]
    trec: Dict[Measure, str] = {}
    others: Dict[Measure, str] = {}
    for arg in args:
        if "@" in arg or "(" in arg:
            found = [parse_measure(arg)]
            from_trec = False
        else:
            try:
                found = expand_trec_argument(arg)
                from_trec = True
            except UnknownMeasureError:
                found = [parse_measure(arg)]
                from_trec = False
        for m in found:
            if m in trec or m in others:
                continue  # asked for twice, under any names: printed once
            if from_trec:
                # trec_eval's name, also for set_F.4 or ndcg.1=2 (which it
                # prints as set_F and ndcg)
                trec[m] = m.family.trec_name(m.param, ()) or m.name
            else:
                (trec if m.is_trec else others)[m] = m.name
    ordered = sorted(
        trec,
        key=lambda m: (_ORDER[m.family.key], m.param if m.param is not None else -1.0),
    )
    pairs = [(trec[m], m) for m in ordered] + [(others[m], m) for m in others]
    # two different measures must not print (and be keyed) under one name
    used: Dict[str, Measure] = {}
    out = []
    for name, m in pairs:
        if used.setdefault(name, m) != m:
            name = m.name
        out.append((name, m))
    return out


def format_trec(result: Evaluation, *, per_query: bool, summary: bool) -> str:
    """trec_eval's relational output: ``%-22s\t%s\t%6.4f`` lines."""
    return "".join(_trec_blocks(result, per_query=per_query, summary=summary))


def _trec_template(name: str, m: Measure) -> str:
    # One %-format per measure, made once: "%-22s\t%s\t%6.4f\n" with the
    # name filled in; counts print as integers, text lines as text.
    if m.family.text:
        value = "'%s'" if m.family.key == "relstring" else "%s"
    else:
        value = "%d" if m.family.count else "%6.4f"
    return f"{name:<22}".replace("%", "%%") + "\t%s\t" + value + "\n"


def _trec_blocks(result: Evaluation, *, per_query: bool, summary: bool) -> Iterator[str]:
    """The output of :func:`format_trec`, one query block at a time."""
    pairs = list(zip(result.names, result.measures))
    if per_query:
        shown = [(name, m) for name, m in pairs if m.family.per_query]
        # one template for a query's lines, given (qid, value, qid, value, ...)
        template = "".join(_trec_template(name, m) for name, m in shown)
        column = {key: i for i, key in enumerate(result._keys)}
        columns = [column[name] for name, _ in shown]
        missing = set(result.missing)
        for qid, row in result._rows.items():
            if qid in missing:
                continue  # trec_eval 9.0.8 prints no rows for them under -c
            yield template % tuple([x for c in columns for x in (qid, row[c])])
    if summary:
        agg = result._aggregate
        yield "".join(
            _trec_template(name, m) % ("all", agg[name])
            for name, m in pairs
            if m.family.in_summary
        )


def _format_json(result: Evaluation, *, per_query: bool, summary: bool) -> str:
    data = result.to_dict()
    if not per_query:
        del data["per_query"]
    if not summary:
        del data["aggregate"]
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def _format_csv(result: Evaluation, *, per_query: bool, summary: bool) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["query", "measure", "value"])
    if per_query:
        for qid, values in result._per_query.items():
            for name in result.names:
                w.writerow([qid, name, values[name]])
    if summary:
        for name, v in result._aggregate.items():
            w.writerow(["all", name, v])
    return out.getvalue()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _Progress:
    """A self-overwriting progress line on a terminal: queries and lines per second."""

    def __init__(self, out: TextIO, *, delay: float = 0.5, every: float = 0.25) -> None:
        self.out = out
        self.start = time.monotonic()
        self.next = self.start + delay
        self.every = every
        self.shown = False

    def __call__(self, queries: int, lines: int) -> None:
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + self.every
        rate = lines / (now - self.start)
        self.out.write(
            f"\rirmetrics: {queries:,} queries, {lines:,} lines ({rate:,.0f} lines/s)\033[K"
        )
        self.out.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()


def _run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    if argv and argv[0] == "compare":
        return _run_compare(argv[1:], stdout, stderr)
    if argv and argv[0] == "ties":
        return _run_ties(argv[1:], stdout, stderr)
    try:
        args = _parser().parse_args(list(argv))
    except _UsageError as exc:
        stderr.write(f"irmetrics: error: {exc} (see 'irmetrics --help')\n")
        return 1
    if args.level < 1:
        stderr.write(f"irmetrics: error: -l must be a relevance level >= 1 (got {args.level})\n")
        return 1
    if args.workers < 0:
        stderr.write(f"irmetrics: error: --workers must be >= 1 (got {args.workers})\n")
        return 1
    if args.depth is not None and args.depth < 1:
        stderr.write(f"irmetrics: error: -M must be a positive depth (got {args.depth})\n")
        return 1
    try:
        pairs = _measures(args.measure)
        check_ties(args.ties)
        for name, m in pairs:
            check_measure(name, m, args.ties)
        qrels = Qrels.from_trec(args.qrels)
        source: Any = sys.stdin.buffer if args.run == "-" else args.run
        run: Any = Run.from_ranked_list(source) if args.ranked_list else source
        progress = None if args.quiet or not _isatty(stderr) else _Progress(stderr)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IrmetricsWarning)
            try:
                result = _evaluate(
                    qrels, run, [n for n, _ in pairs], [m for _, m in pairs],
                    relevance_level=args.level, complete=args.complete,
                    depth=args.depth, judged_only=args.judged_only, progress=progress,
                    workers=args.workers or None, ties=args.ties,
                    detect_ties=args.ties == "trec_eval",
                )
            finally:
                if progress is not None:
                    progress.clear()
        for w in caught:
            stderr.write(f"irmetrics: warning: {w.message}\n")
        moved = getattr(result, "_tie_moved", ())
        if moved:
            stderr.write(
                f"irmetrics: note: tied scores move the values of {len(moved)} "
                f"quer{'y' if len(moved) == 1 else 'ies'} (e.g. {moved[0]!r}); see --ties "
                "and 'irmetrics ties'\n")
    except IrmetricsError as exc:
        stderr.write(f"irmetrics: error: {exc}\n")
        return 2
    if args.format == "trec":  # written as it is made: no copy of it all in memory
        for block in _trec_blocks(result, per_query=args.query, summary=not args.nosummary):
            stdout.write(block)
        return 0
    formatter = {"json": _format_json, "csv": _format_csv}[args.format]
    stdout.write(formatter(result, per_query=args.query, summary=not args.nosummary))
    return 0


_COMPARE_DESCRIPTION = """\
Compare runs with a baseline: per measure, each run's mean, its difference
from the baseline with a confidence interval, a two-sided p-value (corrected
over the runs compared), and the queries won, tied and lost.  Queries are
paired by id; only queries scored for every run are compared (-c scores a
judged query missing from a run as 0).  Run names are the file names without
their last extension.
"""


def _compare_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="irmetrics compare",
        description=_COMPARE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="TREC run files, at least two; the first is the baseline by default")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   required=True, help="a measure to compare (repeatable), e.g. map, nDCG@10")
    p.add_argument("--test", choices=TESTS, default="paired-t",
                   help="the significance test (default: paired-t)")
    p.add_argument("--baseline", metavar="NAME", default=None,
                   help="the run the others are compared with (default: the first)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A",
                   help="significance level; the intervals are at 1 - A (default 0.05)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction per measure (default: holm)")
    p.add_argument("--resamples", type=int, default=10_000, metavar="N",
                   help="resamples of the sampled tests and the bootstrap (default 10000)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="random seed of the sampled tests and the bootstrap (default 0)")
    _evaluation_options(p, "score a judged query missing from a run as an empty ranking")
    p.add_argument("--format", choices=("text", "markdown", "latex", "json", "csv"),
                   default="text", help="output format (default: text)")
    return p


def _run_names(paths: Sequence[str]) -> List[str]:
    """File names without their last extension; the paths themselves if those clash."""
    stems = [os.path.splitext(os.path.basename(p))[0] or p for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    return list(paths)


def _run_compare(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    try:
        args = _compare_parser().parse_args(list(argv))
    except _UsageError as exc:
        stderr.write(f"irmetrics compare: error: {exc} (see 'irmetrics compare --help')\n")
        return 1
    if len(args.runs) < 2:
        stderr.write(
            f"irmetrics compare: error: needs at least two runs (got {len(args.runs)})\n"
        )
        return 1
    names = _run_names(args.runs)
    if len(set(names)) != len(names):
        stderr.write("irmetrics compare: error: a run file is given twice\n")
        return 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IrmetricsWarning)
            result = compare(
                Qrels.from_trec(args.qrels), dict(zip(names, args.runs)), args.measure,
                baseline=args.baseline, test=args.test, alpha=args.alpha,
                correction=args.correction, n_resamples=args.resamples, seed=args.seed,
                relevance_level=args.level, complete=args.complete, depth=args.depth,
                judged_only=args.judged_only,
            )
        for w in caught:
            stderr.write(f"irmetrics compare: warning: {w.message}\n")
    except (IrmetricsError, OSError) as exc:
        message = str(exc) if isinstance(exc, IrmetricsError) else (
            f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        )
        stderr.write(f"irmetrics compare: error: {message}\n")
        return 2
    if args.format == "json":
        stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
    elif args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(ROW_KEYS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(result.rows)
        stdout.write(out.getvalue())
    else:
        render = {"text": result.to_text, "markdown": result.to_markdown,
                  "latex": result.to_latex}[args.format]
        stdout.write(render())
    return 0


_TIES_DESCRIPTION = """\
Which queries' values depend on the order of tied scores, and by how much:
for each, the worst, trec_eval's (ties by document id), expected (the mean
over every order of the tied documents) and best value of MEASURE, sorted
by the spread (best - worst).  See also --ties MODE of 'irmetrics'.
"""


def _ties_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="irmetrics ties", description=_TIES_DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run", metavar="RUN", help="TREC run file")
    p.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                   help="the measure, e.g. map, nDCG@10, recip_rank")
    p.add_argument("-l", "--level", type=int, default=1, metavar="LEVEL",
                   help="relevance level: judgments >= LEVEL are relevant (default 1)")
    p.add_argument("-M", "--depth", type=int, default=None, metavar="DEPTH",
                   help="evaluate only the top DEPTH documents of each query")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="drop unjudged documents before evaluating")
    return p


def _run_ties(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    try:
        args = _ties_parser().parse_args(list(argv))
    except _UsageError as exc:
        stderr.write(f"irmetrics ties: error: {exc} (see 'irmetrics ties --help')\n")
        return 2
    try:
        source: Any = sys.stdin.buffer if args.run == "-" else args.run
        report = tie_report(Qrels.from_trec(args.qrels), source, args.measure,
                            relevance_level=args.level, depth=args.depth,
                            judged_only=args.judged_only)
    except IrmetricsError as exc:
        stderr.write(f"irmetrics ties: error: {exc}\n")
        return 2
    stdout.write(str(report))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``irmetrics`` and ``python -m irmetrics``."""
    if argv is None:
        argv = sys.argv[1:]
    try:
        code = _run(argv, sys.stdout, sys.stderr)
        sys.stdout.flush()
    except KeyboardInterrupt:
        sys.stderr.write("irmetrics: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error of ours
        try:
            sys.stdout = open("/dev/null", "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
    return code
