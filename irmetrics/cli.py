"""The command line: ``irmetrics QRELS RUN``, trec_eval's output from pure Python,
and ``irmetrics compare QRELS RUN1 RUN2 ...``, significance tests between runs.

Exit codes (:data:`EXIT_CODES`): 0 success; 2 a usage or input error (argparse's
convention); 130 interrupted (Ctrl-C); 1 only for an internal error (a bug).
Errors are one line on standard error, never a traceback; a closed output
pipe (``irmetrics ... | head -1``) ends quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import textwrap
import time
import warnings
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple, cast

from . import __version__, formats, report
from ._parallel import WorkerError
from ._text import one_line, quoted, strict_json
from ._trec_help import trec_eval_help
from ._trec_more import read_costs, read_zscores
from .compare import PAIRS, TESTS, compare
from .data import Qrels, Run
from .diversity import NDEVAL_MEASURES
from .errors import InvalidArgumentError, IrmetricsError, IrmetricsWarning, UnknownMeasureError
from .evaluate import _check_measure, _evaluate
from .evaluation import TREC_EVAL_VERSIONS, Evaluation, check_options
from .explain import explain
from .measures import FAMILIES, Measure, expand_trec_argument_named, parse_measure
from .stats import CORRECTIONS, _check_alpha
from .tie_report import tie_report
from .trec import _read_run_ranks
from .zscores import zscored

__all__ = ["main", "format_trec", "EXIT_CODES"]

_ORDER = {f.key: i for i, f in enumerate(FAMILIES)}

_DESCRIPTION = """\
Evaluate a TREC run against qrels, printing what trec_eval 9.0.8 prints
(or trec_eval 10.0, with --trec-eval 10.0).

Measures (-m) take trec_eval's forms (map, P.5,10, ndcg_cut.10, official,
all_trec) and ir_measures-style names (nDCG@10, AP, P(rel=2)@5, RBP(p=0.8)).
Without -m, trec_eval's official measures are printed.

To compare runs with significance tests: irmetrics compare QRELS RUN1 RUN2 ...
(see 'irmetrics compare --help').
To see how one query's value is derived: irmetrics explain -m MEASURE QRELS RUN QUERY.
"""

USAGE_ERROR = 2
INTERRUPTED = 130
FAILED = 1  # a worker process died, or a bug

#: The exit codes of both commands, and what each means (also in ``--help``).
EXIT_CODES = (
    (0, "success (warnings, if any, go to standard error)"),
    (2, "usage or input error: an unknown option, a missing or bad argument, a "
        "file that cannot be read or parsed, an unknown measure"),
    (130, "interrupted (Ctrl-C)"),
    (1, "the evaluation failed for a reason other than its input: a worker process "
        "died (killed by the out-of-memory killer, say), or a bug in irmetrics (please "
        "report it)"),
)



class _UsageError(Exception):
    pass


def _epilog(prog: str) -> str:
    """The exit-code table of ``--help``, wrapped to 79 columns."""
    lines = ["exit status:"]
    for code, text in EXIT_CODES:
        lines += textwrap.wrap(f"  {code:<5}{text}", 79, subsequent_indent=" " * 7)
    lines += textwrap.wrap(f"Errors are one line on standard error, '{prog}: error: ...', never "
                           "a traceback.", 79)
    lines += textwrap.wrap(f"A closed output pipe ({prog} ... | head -1) ends quietly, with "
                           "status 0.", 79)
    return "\n".join(lines) + "\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise _UsageError(message)


def _new_parser(prog: str, description: str, run_help: Optional[str] = None,
                qrels_help: str = "TREC qrels file") -> _Parser:
    """A command's parser, ending with the exit-code table; its first
    argument QRELS, then RUN if *run_help* is given."""
    p = _Parser(prog=prog, description=description, epilog=_epilog(prog),
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS", help=qrels_help)
    if run_help is not None:
        p.add_argument("run", metavar="RUN", help=run_help)
    return p


def _evaluation_options(p: argparse.ArgumentParser, complete_help: Optional[str]) -> None:
    """trec_eval's options that change what is evaluated (every command takes
    them; -c all but 'ties'), with trec_eval's long names as aliases."""
    if complete_help is not None:
        p.add_argument("-c", "--complete", "--complete_rel_info_wanted", dest="complete",
                       action="store_true", help=complete_help)
    p.add_argument("-l", "--level", "--level_for_rel", dest="level", type=int, default=1,
                   metavar="LEVEL",
                   help="relevance level: judgments >= LEVEL are relevant (default 1)")
    p.add_argument("-M", "--depth", "--Max_retrieved_per_topic", "--max_retrieved_per_topic",
                   dest="depth", type=int, default=None, metavar="DEPTH",
                   help="evaluate only the top DEPTH documents of each query (0: none, "
                   "as trec_eval: every query is evaluated with nothing retrieved)")
    p.add_argument("-J", "--judged-only", "--Judged_docs_only", "--judged_docs_only",
                   dest="judged_only", action="store_true",
                   help="drop unjudged documents before evaluating")
    p.add_argument("--trec-eval", dest="trec_eval", choices=TREC_EVAL_VERSIONS,
                   default=TREC_EVAL_VERSIONS[0], metavar="VERSION",
                   help="the trec_eval whose semantics and output to reproduce: "
                   f"{' or '.join(TREC_EVAL_VERSIONS)} (default {TREC_EVAL_VERSIONS[0]})")


def _cost_option(p: argparse.ArgumentParser) -> None:
    """cwl-eval's cost file, for the commands that score the C/W/L measures."""
    p.add_argument("--cost-file", "--cost_file", dest="cost_file", default=None, metavar="FILE",
                   help="cwl-eval's cost file (its -c): 'element_type cost' lines; the run's "
                   "second column names each document's type (a type the file lacks costs 1); "
                   "the C/W/L measures read the costs")


def _costs(args: argparse.Namespace) -> Optional[Dict[str, Dict[str, float]]]:
    """The costs of the run's documents from --cost-file (None without it)."""
    if args.cost_file is None:
        return None
    if args.run == "-":
        raise InvalidArgumentError("--cost-file reads the element types of the run's second "
                                   "column: give the run as a file, not '-'")
    return read_costs(args.cost_file, args.run)


def _check_evaluation_options(args: argparse.Namespace) -> None:
    """What is wrong with -l or -M, as an error."""
    if args.level < 1:
        raise InvalidArgumentError(f"-l must be a relevance level >= 1 (got {args.level})")
    if args.depth is not None and args.depth < 0:  # -M 0: nothing retrieved, as trec_eval
        raise InvalidArgumentError(f"-M must be a depth >= 0 (got {args.depth})")


#: trec_eval's formats of the relevance information (its option -R); a
#: qrels file's second column names judgment groups (subtopics), so that
#: qrels, qrels_jg and qrels_prefs read it alike.
_TREC_EVAL_REL_INFO_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")


def _trec_eval_options(p: argparse.ArgumentParser) -> None:
    """trec_eval's options for its other formats and for debugging (-R, -T,
    -N, -D, -o, -Z), with its long names."""
    p.add_argument("-R", "--Rel_info_format", "--rel_info_format", dest="rel_info_format",
                   default="qrels", metavar="FORMAT", choices=_TREC_EVAL_REL_INFO_FORMATS,
                   help="trec_eval's format of QRELS: qrels (the default), qrels_jg (the "
                   "second column names judgment groups, as qrels reads it), qrels_prefs "
                   "(the same, for the prefs_* measures) or prefs ('qid jg jsg docno level')")
    p.add_argument("-T", "--Results_format", "--results_format", dest="results_format",
                   default="trec_results", metavar="FORMAT", choices=("trec_results",),
                   help="trec_eval's format of RUN: trec_results (the default, and the only one)")
    p.add_argument("-N", "--Number_docs_in_coll", "--number_docs_in_coll", dest="collection_size",
                   type=int, default=0, metavar="N",
                   help="documents in the collection, which utility's fourth coefficient reads")
    p.add_argument("-D", "--Debug_level", "--debug_level", dest="debug", default=None,
                   metavar="LEVEL[.QUERY]",
                   help="trec_eval's debugging: LEVEL is accepted and prints nothing more; "
                   ".QUERY evaluates that query alone")
    p.add_argument("-o", "--Output_old_results_format", "--output_old_results_format",
                   dest="old_format", action="store_true",
                   help="accepted and ignored, as trec_eval (obsolete there)")
    p.add_argument("-Z", "--Zscore", "--zscore", dest="zscores", default=None, metavar="FILE",
                   help="print z-scores: each query's value as (value - mean) / deviation, with "
                   "the mean and deviation of FILE's 'qid measure mean deviation' lines")


def _parser() -> argparse.ArgumentParser:
    p = _new_parser("irmetrics", _DESCRIPTION,
                    "TREC run file (6 columns); '-' reads standard input",
                    "TREC qrels file (4 columns; .gz read too)")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help="a measure to print (repeatable; default: official)")
    p.add_argument("-q", "--query", "--query_eval_wanted", dest="query", action="store_true",
                   help="print per-query values too")
    p.add_argument("-n", "--nosummary", action="store_true",
                   help="do not print the summary over all queries")
    _evaluation_options(
        p, "average over every qrels query; one missing from the run scores 0"
    )
    _cost_option(p)
    p.add_argument("--format", choices=("trec", "json", "csv"), default="trec",
                   help="output format (default: trec, byte-identical to trec_eval)")
    _trec_eval_options(p)
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="processes for a large run file (default: automatic, up to 2)")
    p.add_argument("--float32-scores", action="store_true",
                   help="round scores to single precision first, as pytrec_eval and "
                   "trec_eval's float build (tag v9.0.8) store them")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line on standard error (shown only on a terminal)")
    p.add_argument("--ranked-list", action="store_true",
                   help="RUN has two columns, 'qid docid', in rank order")
    p.add_argument("--ndeval", action="store_true",
                   help="print what ndeval prints: its diversity measures as CSV "
                        "(QRELS with subtopic ids in the second column; RUN ordered by "
                        "its rank column, as ndeval does)")
    p.add_argument("--traditional", action="store_true",
                   help="with --ndeval: order RUN by score, ties by docid descending, "
                        "like trec_eval (ndeval -traditional)")
    p.add_argument("--ties", default="trec_eval", metavar="MODE",
                   help="order of tied scores: trec_eval (default: by document id), "
                        "expected, best or worst (see 'irmetrics ties --help')")
    p.add_argument("-v", "--version", action="version", version=f"irmetrics {__version__}")
    return p


def _measures(args: Sequence[str], version: str = "9.0.8") -> List[Tuple[str, Measure]]:
    """Resolve -m arguments into (printed name, measure), in trec_eval's order.

    Measures given in trec_eval's forms print under the names trec_eval
    prints (``P_5``, ``iprec_at_recall_0.33``, and ``set_F_0.5`` for
    ``set_F.0.5`` or ``ndcg_1=1,2=3`` for ``ndcg.1=1,2=3``: the parameters
    as written) and in trec_eval's order; the others follow, as given.  A
    measure asked for twice prints once, under its first name.
    """
    trec: Dict[Measure, str] = {}
    others: Dict[Measure, str] = {}
    for arg in args or ["official"]:
        found: List[Tuple[Optional[str], Measure]]
        if "@" in arg or "(" in arg:
            found = [(None, parse_measure(arg))]
        else:
            try:
                found = list(expand_trec_argument_named(arg, version))
            except UnknownMeasureError:
                found = [(None, parse_measure(arg))]
        for printed, m in found:
            if m in trec or m in others:
                continue  # asked for twice, under any names: printed once
            if printed is not None:
                trec[m] = printed
            else:
                (trec if m.is_trec else others)[m] = m.name
    ordered = sorted(
        trec,
        key=lambda m: (_ORDER[m.family.key], m.param if m.param is not None else -1.0),
    )
    pairs = [(trec[m], m) for m in ordered] + [(others[m], m) for m in others]
    # Two different measures must not print (and be keyed) under one name:
    # iprec_at_recall.0.33,0.333 would print two iprec_at_recall_0.33 lines.
    used: Dict[str, Measure] = {}
    for name, m in pairs:
        if used.setdefault(name, m) != m:
            raise InvalidArgumentError(
                f"two different measures would print as {name!r}; give one of them"
            )
    return pairs


def format_trec(result: Evaluation, *, per_query: bool, summary: bool) -> str:
    """trec_eval's relational output: ``%-22s\t%s\t%6.4f`` lines
    (:func:`irmetrics.formats.trec_text`)."""
    return formats.trec_text(result, per_query=per_query, summary=summary)


def _run_source(path: str) -> Any:
    """RUN as given: a file name, or for '-' standard input (which a shell's
    ``<&-`` closes: Python then has none)."""
    if path != "-":
        return path
    if sys.stdin is None:
        raise InvalidArgumentError(
            "standard input is closed, and RUN '-' reads the run from it: give the "
            "run's file name, or pipe the run in")
    return sys.stdin.buffer


@contextlib.contextmanager
def _warnings_to(stderr: TextIO, prog: str) -> Iterator[None]:
    """The irmetrics warnings of the block, each one line on *stderr*, once
    the block has succeeded (an error is told alone)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IrmetricsWarning)
        yield
    for w in caught:
        stderr.write(f"{prog}: warning: {one_line(str(w.message))}\n")


class _TerminalText:
    """Standard output on a terminal: each run of control characters in what
    is written (an escape sequence in a query id or run name) as one space,
    except the tabs and line ends of the output itself.  Redirected or piped,
    the output is written byte for byte, as trec_eval writes it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write("\n".join(
            "\t".join(one_line(cell) for cell in line.split("\t"))
            for line in text.split("\n")))

    def flush(self) -> None:
        self.out.flush()


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


# === The commands ===
# Each parses its arguments, checks what argparse cannot, calls the library
# and writes what it returns; _run() turns an error into its one line.


def _check_arguments(args: argparse.Namespace) -> None:
    """The combinations of arguments that argparse does not check, in order
    of precedence: the first that fails is the error told."""
    if args.collection_size < 0:
        raise InvalidArgumentError(f"-N must be a number of documents >= 0 (got "
                                   f"{args.collection_size})")
    if args.traditional and not args.ndeval:
        raise InvalidArgumentError("--traditional goes with --ndeval (see 'irmetrics --help')")
    if args.ndeval and (args.measure or args.format != "trec" or args.ranked_list):
        raise InvalidArgumentError(
            "--ndeval prints ndeval's own measures and format; it takes no -m, "
            "--format or --ranked-list (see 'irmetrics --help')")
    if args.workers < 0:
        raise InvalidArgumentError(f"--workers must be >= 1 (got {args.workers})")


def _evaluate_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    _check_arguments(args)
    if args.ndeval:
        pairs = [(name, parse_measure(name)) for name in NDEVAL_MEASURES]
    else:
        pairs = _measures(args.measure, args.trec_eval)
    options = check_options(
        relevance_level=args.level, complete=args.complete, depth=args.depth,
        judged_only=args.judged_only, ties=args.ties, detect_ties=args.ties == "trec_eval",
        scores="float32" if args.float32_scores else "float64", trec_eval=args.trec_eval,
        collection_size=args.collection_size, costs=_costs(args))
    for name, m in pairs:
        _check_measure(name, m, options)
    # read by evaluate(), which looks at duplicates as trec_eval does;
    # --ndeval's report also lists the qrels' queries
    qrels: Any = Qrels.from_trec(args.qrels) if args.ndeval else args.qrels
    run: Any = _run_source(args.run)
    if args.rel_info_format == "prefs":
        qrels = Qrels.from_prefs(qrels)
    if args.ranked_list:
        run = Run.from_ranked_list(run)
    elif args.ndeval:
        # ndeval orders a query by the rank column (-traditional: like
        # trec_eval, by score) and names the run by the tag of the first line
        scores, tag = _read_run_ranks(run, traditional=args.traditional)
        run = Run._trusted(scores, tag)
    if args.debug is not None:
        qrels, run = _debug_query(args.debug, qrels, run)
    progress = None if args.quiet or not _isatty(stderr) else _Progress(stderr)
    with _warnings_to(stderr, "irmetrics"):
        try:
            result = _evaluate(qrels, run, [n for n, _ in pairs], [m for _, m in pairs],
                               options, progress=progress, workers=args.workers or None)
        finally:
            if progress is not None:
                progress.clear()
    if args.zscores is not None:
        result = zscored(result, read_zscores(args.zscores))
    moved = result.tie_moved
    if moved:
        stderr.write(
            f"irmetrics: note: tied scores move the values of {len(moved)} "
            f"quer{'y' if len(moved) == 1 else 'ies'} (e.g. {quoted(moved[0])}); see --ties "
            "and 'irmetrics ties'\n")
    if _isatty(stdout):
        stdout = cast(TextIO, _TerminalText(stdout))
    if args.ndeval:
        stdout.write(formats.ndeval_text(result, qrels))
    elif args.format == "trec":  # written as it is made: no copy of it all in memory
        for block in formats.trec_blocks(result, per_query=args.query,
                                         summary=not args.nosummary,
                                         zscores=args.zscores is not None):
            stdout.write(block)
    else:
        formatter = {"json": formats.json_text, "csv": formats.csv_text}[args.format]
        stdout.write(formatter(result, per_query=args.query, summary=not args.nosummary))


def _debug_query(debug: str, qrels: Any, run: Any) -> Tuple[Qrels, Run]:
    """trec_eval's ``-D LEVEL.QUERY``: the qrels and the run of QUERY alone
    (``-D LEVEL``: both as they are).  LEVEL, trec_eval's amount of debugging
    output, changes nothing here."""
    level, dot, qid = debug.partition(".")
    if not level.isdigit():
        raise InvalidArgumentError(f"-D must be a debug level (an int >= 0), optionally "
                                   f"followed by .QUERY (got {quoted(debug)})")
    if not dot:
        return qrels, run
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.from_trec(qrels)
    run = run if isinstance(run, Run) else Run.from_trec(run)
    return qrels._only(qid), Run._trusted({q: dict(run[q]) for q in run if q == qid}, run.name)


def _trec_eval_help(argv: Sequence[str], stdout: TextIO) -> bool:
    """``--trec-eval VERSION -h``: trec_eval's own help, as that version prints
    it with the ``-m``, ``-R`` and ``-T`` of *argv*; False without both."""
    if not ({"-h", "--help"} & set(argv) and any(a.startswith("--trec-eval") for a in argv)):
        return False
    p = _Parser(add_help=False)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-m", "--measure", action="append", default=[])
    p.add_argument("-R", "--Rel_info_format", "--rel_info_format", default="qrels")
    p.add_argument("-T", "--Results_format", "--results_format", default="trec_results")
    p.add_argument("--trec-eval", dest="trec_eval", choices=TREC_EVAL_VERSIONS)
    args = p.parse_known_args(list(argv))[0]
    if args.trec_eval is None:
        return False
    stdout.write(trec_eval_help(args.trec_eval, args.measure, args.Rel_info_format,
                                args.Results_format))
    return True


_COMPARE_DESCRIPTION = """\
Compare runs with a baseline (or several, or all pairs with --pairs all): per
measure, each run's mean, its difference from the run compared with, with a
confidence interval and paired Cohen's d, a two-sided p-value (corrected over
the comparisons of the measure), and the queries won, tied and lost.  Queries are
paired by id; only queries scored for every run are compared (-c scores a
judged query missing from a run as 0).  Run names are the file names without
their last extension.
"""


def _compare_parser() -> argparse.ArgumentParser:
    p = _new_parser("irmetrics compare", _COMPARE_DESCRIPTION)
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="TREC run files, at least two; the first is the baseline by default")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   required=True, help="a measure to compare (repeatable), e.g. map, nDCG@10")
    p.add_argument("--test", choices=TESTS, default=None,
                   help="the significance test (default: tukey-hsd with --pairs all, "
                        "else paired-t)")
    p.add_argument("--pairs", choices=PAIRS, default="baseline",
                   help="compare each run with the baseline(s), or all pairs of runs "
                        "(default: baseline)")
    p.add_argument("--baseline", metavar="NAME", action="append", default=None,
                   help="a run the others are compared with (repeatable; default: the first)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A",
                   help="significance level; the intervals are at 1 - A (default 0.05)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction over the comparisons of each measure "
                        "(default: holm)")
    p.add_argument("--resamples", type=int, default=10_000, metavar="N",
                   help="resamples of the sampled tests and the bootstrap (default 10000)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="random seed of the sampled tests and the bootstrap (default 0)")
    _evaluation_options(p, "score a judged query missing from a run as an empty ranking")
    p.add_argument("--format", choices=tuple(report.FORMATS), default="text",
                   help="output format (default: text)")
    return p


def _run_names(paths: Sequence[str]) -> List[str]:
    """File names without their last extension; the paths themselves if those clash."""
    stems = [os.path.splitext(os.path.basename(p))[0] or p for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    return list(paths)


def _compare_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    if len(args.runs) < 2:
        raise InvalidArgumentError(f"needs at least two runs (got {len(args.runs)})")
    names = _run_names(args.runs)
    if len(set(names)) != len(names):
        raise InvalidArgumentError("a run file is given twice")
    # named as the user gave them, not as compare()'s arguments
    _check_alpha(args.alpha, "--alpha")
    if args.resamples < 1:
        raise InvalidArgumentError(f"--resamples must be at least 1 (got {args.resamples})")
    with _warnings_to(stderr, "irmetrics compare"):
        result = compare(
            Qrels.from_trec(args.qrels), dict(zip(names, args.runs)), args.measure,
            baseline=args.baseline[0] if args.baseline and len(args.baseline) == 1
            else args.baseline, pairs=args.pairs, test=args.test, alpha=args.alpha,
            correction=args.correction, n_resamples=args.resamples, seed=args.seed,
            relevance_level=args.level, complete=args.complete, depth=args.depth,
            judged_only=args.judged_only, trec_eval=args.trec_eval,
        )
    out = report.FORMATS[args.format](result)
    stdout.write(out if out.endswith("\n") else out + "\n")


def _explain_parser() -> argparse.ArgumentParser:
    p = _new_parser("irmetrics explain",
                    "Show how one query's value of one measure is derived, rank by rank "
                    "(irmetrics.explain): the ranking as the measure sees it, each rank's "
                    "terms, and the arithmetic.", "TREC run file; '-' reads standard input")
    p.add_argument("query", metavar="QUERY", help="the query id")
    p.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                   help="the measure, e.g. map, AP, ndcg_cut_10, nDCG@10")
    _evaluation_options(p, "explain a judged query missing from the run as an empty ranking")
    _cost_option(p)
    p.add_argument("--float32-scores", action="store_true",
                   help="compare scores in single precision, as pytrec_eval does")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="output format (default: text)")
    return p


def _explain_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    with _warnings_to(stderr, "irmetrics explain"):
        result = explain(
            args.qrels, _run_source(args.run), args.query, args.measure,
            relevance_level=args.level, complete=args.complete, depth=args.depth,
            judged_only=args.judged_only, scores="float32" if args.float32_scores else "float64",
            trec_eval=args.trec_eval, costs=_costs(args),
        )
    if args.format == "json":
        stdout.write(strict_json(result.to_dict(), indent=2) + "\n")
    else:
        stdout.write(str(result) + "\n")


_TIES_DESCRIPTION = """\
Which queries' values depend on the order of tied scores, and by how much:
for each, the worst, trec_eval's (ties by document id), expected (the mean
over every order of the tied documents) and best value of MEASURE, sorted
by the spread (best - worst).  See also --ties MODE of 'irmetrics'.
"""


def _ties_parser() -> argparse.ArgumentParser:
    p = _new_parser("irmetrics ties", _TIES_DESCRIPTION, "TREC run file")
    p.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                   help="the measure, e.g. map, nDCG@10, recip_rank")
    _evaluation_options(p, None)
    return p


def _ties_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    ties = tie_report(Qrels.from_trec(args.qrels), _run_source(args.run), args.measure,
                      relevance_level=args.level, depth=args.depth, judged_only=args.judged_only,
                      trec_eval=args.trec_eval)
    stdout.write(str(ties))


_Command = Callable[[argparse.Namespace, TextIO, TextIO], None]
_COMMANDS: Dict[str, Tuple[Callable[[], argparse.ArgumentParser], _Command]] = {
    "compare": (_compare_parser, _compare_command),
    "ties": (_ties_parser, _ties_command),
    "explain": (_explain_parser, _explain_command),
}


def _prog(argv: Sequence[str]) -> str:
    """The command's name in its messages: 'irmetrics', 'irmetrics compare' ..."""
    return f"irmetrics {argv[0]}" if argv and argv[0] in _COMMANDS else "irmetrics"


def _run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """Run the command *argv* names and return its exit code: every error is
    one line on *stderr* (see :data:`EXIT_CODES`)."""
    prog = _prog(argv)
    parser: Callable[[], argparse.ArgumentParser] = _parser
    command: _Command = _evaluate_command
    if prog != "irmetrics":
        (parser, command), argv = _COMMANDS[argv[0]], argv[1:]
    try:
        if prog == "irmetrics" and _trec_eval_help(argv, stdout):
            return 0
        args = parser().parse_args(list(argv))
        _check_evaluation_options(args)
        command(args, stdout, stderr)
        stdout.flush()
    except _UsageError as exc:  # argparse's
        stderr.write(f"{prog}: error: {exc} (see '{prog} --help')\n")
        return USAGE_ERROR
    except KeyboardInterrupt:
        stderr.write(f"{prog}: interrupted\n")
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head -1`): not an error of ours.  Point
        # standard output at /dev/null so that the flush at exit cannot fail
        # and print "Exception ignored ..." (as the Python docs advise).
        with contextlib.suppress(OSError, ValueError, AttributeError):  # not a real file
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return 0
    except (IrmetricsError, OSError, WorkerError) as exc:
        # the input, or writing to a full disk; a worker process that died is
        # not the input's fault
        stderr.write(f"{prog}: error: {_one_line(exc)}\n")
        return FAILED if isinstance(exc, WorkerError) else USAGE_ERROR
    except Exception as exc:  # a bug: one line all the same, never a traceback
        stderr.write(f"{prog}: internal error (please report it): {type(exc).__name__}: "
                     f"{_one_line(exc)}\n")
        return FAILED
    return 0


def _one_line(exc: BaseException) -> str:
    """The message of *exc* on one line, without control characters (an
    OSError as 'file: reason')."""
    if isinstance(exc, OSError) and not isinstance(exc, IrmetricsError):
        reason = exc.strerror or str(exc) or type(exc).__name__
        message = f"{exc.filename}: {reason}" if exc.filename is not None else reason
    else:
        message = str(exc) or type(exc).__name__
    # a file name, say, may hold a line break or an escape sequence
    return one_line(message)


def console() -> None:  # pragma: no cover - the tests run it as a process
    """The ``irmetrics`` command and ``python -m irmetrics``: :func:`main`, then exit.

    The process ends with ``os._exit`` once its output is flushed, skipping
    the interpreter's teardown (freeing every object one by one), which
    nothing here needs and which a short run would notice.
    """
    code = main()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: closed when the process started (`>&-`)
                stream.flush()
    except (OSError, ValueError):  # a reader gone, or closed streams: exit as Python would
        sys.exit(code)
    os._exit(code)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``irmetrics`` and ``python -m irmetrics``; returns the exit code.

    0 success, 2 a usage or input error, 130 interrupted (see :data:`EXIT_CODES`).
    """
    if argv is None:
        argv = sys.argv[1:]
    # A standard stream that the shell closed (`>&-`, `2>&-`) is None in
    # Python.  Without standard error, messages are dropped (kept here,
    # unread; the exit status still tells); without standard output, there
    # is nowhere to write.
    stderr: TextIO = sys.stderr if sys.stderr is not None else io.StringIO()
    if sys.stdout is None:
        stderr.write(f"{_prog(argv)}: error: standard output is closed: there is nowhere to "
                     "write the results (redirect it, e.g. '> results.txt')\n")
        return USAGE_ERROR
    return _run(argv, sys.stdout, stderr)
