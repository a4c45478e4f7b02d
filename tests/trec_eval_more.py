"""Reading ``tests/data/trec_eval_more``: the commands and what each trec_eval build printed.

Shared by ``test_trec_eval10.py`` and ``test_trec_eval_rest.py`` (no tests here). Every
expected value is a file a trec_eval binary wrote (see that folder's README.md and
regenerate.sh); nothing is typed by hand.
"""

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from irmetrics.cli import _run

ROOT = Path(__file__).resolve().parents[1]
MORE = Path(__file__).parent / "data" / "trec_eval_more"
REPRO = MORE / "reproducers"
VERSIONS = ("9.0.8", "10.0")


def commands(folder):
    """{short name: (options and files, file on standard input or None)} of commands.tsv."""
    out = {}
    for name in ("commands.tsv", "commands.release.tsv"):
        path = folder / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="ascii").splitlines():
            fields = line.split("\t")
            out.setdefault(fields[0], (shlex.split(fields[1]), fields[2] if len(fields) > 2 else None))
    return out


def statuses(folder):
    """{(version, short name): exit status} of status.tsv."""
    rows = (folder / "status.tsv").read_text(encoding="ascii").splitlines()[1:]
    return {(v, n): int(s) for v, n, s in (row.split("\t") for row in rows)}


class Expected:
    """What trec_eval ``version`` printed for command ``name`` of ``folder``."""

    def __init__(self, folder, version, name):
        self.folder, self.version, self.name = folder, version, name
        self.args, self.stdin = commands(folder)[name]
        self.stdout = (folder / f"expected.{version}.{name}.txt").read_text(encoding="ascii")
        err = folder / f"expected.{version}.{name}.stderr.txt"
        self.stderr = err.read_text(encoding="ascii") if err.exists() else ""
        self.status = statuses(folder)[(version, name)]

    def __repr__(self):
        return f"<trec_eval {self.version} {self.name}: exit {self.status}>"


def run_cli(argv, cwd):
    """irmetrics' command line in this process (what ``python -m irmetrics`` runs), in ``cwd``:
    (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = _run([str(a) for a in argv], out, err)
    except SystemExit as exc:  # argparse's own -h
        code = exc.code
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def run_python_m(argv, cwd, stdin_path):
    """``python -m irmetrics ARGV < stdin_path`` in ``cwd``: (exit status, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with open(stdin_path, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "irmetrics", *map(str, argv)], stdin=stdin,
                              capture_output=True, text=True, cwd=str(cwd), env=env, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def run_like(expected, version, extra=()):
    """irmetrics with ``--trec-eval version`` (and ``extra``) on ``expected``'s command; with
    its file on standard input through ``python -m irmetrics``."""
    argv = ["--trec-eval", version, *extra, *expected.args]
    if expected.stdin:
        return run_python_m(argv, expected.folder, expected.folder / expected.stdin)
    return run_cli(argv, expected.folder)


_TIE_NOTE = (r"irmetrics: note: tied scores move the values of \d+ quer(y|ies) \(e\.g\. '[^']*'\);"
             r" see --ties and 'irmetrics ties'\n")


def only_the_tie_note(err):
    """trec_eval's own test run has tied scores: the CLI's one line pointing at --ties
    (tests/test_ties.py) is all irmetrics may print on standard error when trec_eval succeeds."""
    return re.fullmatch(f"({_TIE_NOTE})?", err) is not None


def assert_prints(result, stdout):
    """irmetrics succeeded and printed ``stdout`` byte for byte."""
    code, out, err = result
    assert code == 0, err
    assert only_the_tie_note(err), err
    # Lists of lines first, so that a failure points at the first differing line.
    assert out.splitlines() == stdout.splitlines()
    assert out == stdout


def per_query_blocks(text):
    """{query: [lines]} in printed order (the ``all`` block included)."""
    blocks = {}
    for line in text.splitlines():
        blocks.setdefault(line.split("\t")[1], []).append(line)
    return blocks
