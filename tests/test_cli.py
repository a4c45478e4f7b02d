"""The command line: exit codes, error lines, formats and options.

Exit codes (irmetrics/cli.py, EXIT_CODES): 0 success, 2 usage or input error,
130 interrupted, 1 an internal error (a bug).
Expected values are derived by hand in comments, or from evaluate() where the
test is about the output format rather than the numbers.
"""

import csv
import gzip
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import irmetrics
from irmetrics import Qrels, Run, evaluate
from irmetrics.cli import _run

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "trec_eval"

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d5 0\n"
RUN = (
    "q1 Q0 d1 1 0.9 myrun\n"
    "q1 Q0 d2 2 0.8 myrun\n"
    "q1 Q0 d4 3 0.7 myrun\n"
    "q2 Q0 d5 1 0.6 myrun\n"
    "q2 Q0 d1 2 0.5 myrun\n"
)
# By hand, binary (level 1): q1 ranks d1(1) d2(0) d4(-); R=2 (d1, d3).
#   P_5 q1 = 1/5 = 0.2; map q1 = (1/1)/2 = 0.5
# q2 ranks d5(0) d1(1); R=1.  P_5 q2 = 1/5 = 0.2; map q2 = (1/2)/1 = 0.5
# all: P_5 = 0.2, map = 0.5, num_ret = 5, num_rel = 3, num_rel_ret = 2


def write(tmp_path, name, text):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def run_subprocess(*argv, input=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "irmetrics", *[str(a) for a in argv]],
        input=input, capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=120,
    )


def error_line(err):
    """The single 'irmetrics: error:' line of *err* (and no traceback)."""
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("irmetrics: error:")]
    assert len(lines) == 1, err
    assert err.endswith(lines[0] + "\n"), err  # the error is the last thing printed
    return lines[0]


def parse_trec(out):
    return [tuple(line.split("\t")) for line in out.splitlines()]


# === Success =================================================================


def test_default_measures_hand_values(files):
    code, out, err = run_cli("-m", "P.5", "-m", "map", "-m", "num_rel", *files)
    assert code == 0, err
    assert err == ""
    # trec_eval's order: num_rel, map, P_5 (see comment at the top for values)
    assert out == (
        "num_rel               \tall\t3\n"
        "map                   \tall\t0.5000\n"
        "P_5                   \tall\t0.2000\n"
    )


def test_q_prints_per_query_blocks_in_sorted_order_then_all(tmp_path):
    # query ids "10" and "9": string order puts "10" first (trec_eval sorts
    # with strcmp); the run lists "9" first.
    qrels = write(tmp_path, "q", "9 0 a 1\n10 0 a 1\n10 0 b 1\n")
    run = write(tmp_path, "r", "9 Q0 a 1 1 t\n10 Q0 b 1 1 t\n")
    code, out, _ = run_cli("-q", "-m", "P.5", "-m", "num_rel", qrels, run)
    assert code == 0
    assert [(m.strip(), q, v) for m, q, v in parse_trec(out)] == [
        ("num_rel", "10", "2"),
        ("P_5", "10", "0.2000"),  # 1 relevant in 5
        ("num_rel", "9", "1"),
        ("P_5", "9", "0.2000"),
        ("num_rel", "all", "3"),
        ("P_5", "all", "0.2000"),
    ]


def test_n_with_q_prints_no_all_lines(files):
    code, out, _ = run_cli("-q", "-n", "-m", "map", *files)
    assert code == 0
    rows = parse_trec(out)
    assert [q for _, q, _ in rows] == ["q1", "q2"]
    assert all(q != "all" for _, q, _ in rows)


def test_n_without_q_prints_nothing(files):
    code, out, _ = run_cli("-n", "-m", "map", *files)
    assert code == 0
    assert out == ""


def test_ir_measures_names(files):
    code, out, err = run_cli("-m", "nDCG@10", "-m", "P(rel=2)@5", *files)
    assert code == 0, err
    rows = {m.strip(): v for m, q, v in parse_trec(out)}
    assert set(rows) == {"ndcg_cut_10", "P(rel=2)@5"}
    # P(rel=2)@5: only d3 has grade 2 and no run ranks it: 0/5 in both queries.
    assert rows["P(rel=2)@5"] == "0.0000"
    # nDCG@10 q1: gains 1,0,0 -> DCG 1; ideal 2,1 -> 2 + 1/log2(3) = 2.63093
    #   -> 0.38010.  q2: gains 0,1 -> 1/log2(3) = 0.63093; ideal 1 -> 0.63093.
    #   mean = 0.50552
    assert rows["ndcg_cut_10"] == "0.5055"


def test_ir_name_and_trec_name_print_once(files):
    code, out, _ = run_cli("-m", "P@5", "-m", "P.5", *files)
    assert code == 0
    assert [m.strip() for m, _, _ in parse_trec(out)] == ["P_5"]


def test_trec_parameter_keeps_trec_eval_name(tmp_path):
    # set_F.0.5: trec_eval 9.0.8 prints the line as "set_F_0.5" (the name
    # and the parameters as written: append_string in meas_init.c; shared
    # conformance pairs, option set 14).  pytrec_eval keys it 'set_F'.
    # Value: P = 1/1, R = 1/2; x = 0.5: (x + 1) P R / (x P + R) = 0.75 / 1 = 0.75
    qrels = write(tmp_path, "q", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
    run = write(tmp_path, "r", "q1 Q0 d1 1 0.9 t\n")
    code, out, err = run_cli("-m", "set_F.0.5", qrels, run)
    assert code == 0, err
    assert out == "set_F_0.5             \tall\t0.7500\n"


def test_json_format(files):
    code, out, err = run_cli("--format", "json", "-q", "-m", "map", "-m", "P.5", *files)
    assert code == 0, err
    data = json.loads(out)
    assert {"run", "measures", "aggregate", "per_query", "skipped_queries",
            "missing_queries", "complete"} <= set(data)
    assert data["run"] == "myrun"
    expected = evaluate(Qrels.from_trec(files[0]), Run.from_trec(files[1]), data["measures"])
    assert data["aggregate"] == expected.aggregate
    assert data["per_query"] == expected.per_query
    assert data["aggregate"]["map"] == pytest.approx(0.5)  # hand value, see top
    assert data["skipped_queries"] == []


def test_json_without_q_has_no_per_query(files):
    code, out, _ = run_cli("--format", "json", "-m", "map", *files)
    assert code == 0
    data = json.loads(out)
    assert "per_query" not in data
    assert data["aggregate"]["map"] == pytest.approx(0.5)


def test_csv_format(files):
    code, out, err = run_cli("--format", "csv", "-q", "-m", "map", "-m", "num_ret", *files)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query", "measure", "value"]
    body = {(q, m): v for q, m, v in rows[1:]}
    assert len(body) == len(rows) - 1  # no duplicate rows
    assert set(q for q, _ in body) == {"q1", "q2", "all"}
    assert float(body[("q1", "map")]) == pytest.approx(0.5)
    assert float(body[("q2", "map")]) == pytest.approx(0.5)
    assert int(body[("all", "num_ret")]) == 5  # 3 + 2 documents


@pytest.mark.parametrize("fmt", ["trec", "json", "csv"])
@pytest.mark.parametrize("flags", [["-q"], [], ["-q", "-n"]])
def test_the_printed_formats_are_the_library_s(files, fmt, flags):
    # the command line only chooses: irmetrics.formats writes what it prints
    from irmetrics import formats

    code, out, err = run_cli("--format", fmt, *flags, "-m", "map", "-m", "P.5",
                             "-m", "num_ret", *files)
    assert code == 0, err
    result = evaluate(str(files[0]), str(files[1]), ["num_ret", "map", "P_5"])
    write = {"trec": formats.trec_text, "json": formats.json_text, "csv": formats.csv_text}[fmt]
    assert out == write(result, per_query="-q" in flags, summary="-n" not in flags)


def test_run_query_without_judgments_warns_and_output_is_unchanged(tmp_path, files):
    qrels, run = files
    extra = write(tmp_path, "run2.txt", RUN + "q9 Q0 d1 1 0.5 myrun\n")
    code, out, err = run_cli("-q", "-m", "map", "-m", "num_q", qrels, extra)
    assert code == 0
    assert "irmetrics: warning:" in err and "q9" in err
    assert "error" not in err
    code0, out0, err0 = run_cli("-q", "-m", "map", "-m", "num_q", qrels, run)
    assert (code0, err0) == (0, "")
    assert out == out0


@pytest.mark.slow
def test_dash_reads_run_from_stdin(files):
    proc = run_subprocess("-m", "map", files[0], "-", input=RUN)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "map                   \tall\t0.5000\n"


def test_ranked_list(tmp_path, files):
    # two columns in rank order: the same rankings as RUN
    ranked = write(tmp_path, "ranked.txt", "q1 d1\nq1 d2\nq1 d4\nq2 d5\nq2 d1\n")
    code, out, err = run_cli("--ranked-list", "-m", "map", "-m", "P.5", files[0], ranked)
    assert code == 0, err
    code0, out0, _ = run_cli("-m", "map", "-m", "P.5", *files)
    assert out == out0


def test_ranked_list_order_is_the_file_order(tmp_path, files):
    # q1 reversed: d4(-) d2(0) d1(1): AP = (1/3)/2 = 1/6; q2 as before 0.5
    # mean = (1/6 + 1/2) / 2 = 1/3
    ranked = write(tmp_path, "ranked.txt", "q1 d4\nq1 d2\nq1 d1\nq2 d5\nq2 d1\n")
    code, out, _ = run_cli("--ranked-list", "-m", "map", files[0], ranked)
    assert code == 0
    assert out == "map                   \tall\t0.3333\n"


def test_gzip_inputs(tmp_path, files):
    qz = write(tmp_path, "qrels.gz", gzip.compress(QRELS.encode()))
    rz = write(tmp_path, "run.gz", gzip.compress(RUN.encode()))
    code, out, err = run_cli("-m", "map", "-m", "P.5", qz, rz)
    assert code == 0, err
    code0, out0, _ = run_cli("-m", "map", "-m", "P.5", *files)
    assert out == out0


@pytest.mark.slow
def test_version():
    proc = run_subprocess("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"irmetrics {irmetrics.__version__}"


def test_complete_flag(tmp_path):
    # q2 judged but absent from the run: -c averages it in as 0.
    qrels = write(tmp_path, "q", "q1 0 a 1\nq2 0 b 1\n")
    run = write(tmp_path, "r", "q1 Q0 a 1 1 t\n")
    assert run_cli("-m", "map", qrels, run)[1] == "map                   \tall\t1.0000\n"
    # (1 + 0) / 2
    assert run_cli("-c", "-m", "map", qrels, run)[1] == "map                   \tall\t0.5000\n"


def test_level_and_depth_flags(files):
    # -l2: only d3 relevant in q1 (not retrieved), none in q2 -> q2 has R=0.
    # num_rel = 1; map q1 = 0, q2 = 0 -> 0
    code, out, _ = run_cli("-l", "2", "-m", "num_rel", "-m", "map", *files)
    assert code == 0
    assert out == "num_rel               \tall\t1\nmap                   \tall\t0.0000\n"
    # -M1: q1 keeps d1 (rel), q2 keeps d5 (nonrel): num_ret 2, num_rel_ret 1
    code, out, _ = run_cli("-M", "1", "-m", "num_ret", "-m", "num_rel_ret", *files)
    assert out == "num_ret               \tall\t2\nnum_rel_ret           \tall\t1\n"


# === Usage errors: exit 2 (argparse's convention) ===========================


@pytest.mark.parametrize(
    "argv, needle",
    [
        ([], "required"),
        (["--bogus", "QRELS", "RUN"], "--bogus"),
        (["-l", "0", "QRELS", "RUN"], "-l"),
        (["-M", "-1", "QRELS", "RUN"], "-M"),
        (["--format", "xml", "QRELS", "RUN"], "xml"),
        (["-l", "x", "QRELS", "RUN"], "-l"),
    ],
    ids=["no-args", "unknown-option", "l0", "M-negative", "format-xml", "l-not-int"],
)
def test_usage_errors_exit_2(files, argv, needle):
    argv = [str(files[0]) if a == "QRELS" else str(files[1]) if a == "RUN" else a for a in argv]
    code, out, err = run_cli(*argv)
    assert code == 2
    assert out == ""
    assert needle in error_line(err)


@pytest.mark.slow
def test_usage_error_subprocess_has_no_traceback():
    proc = run_subprocess("--bogus")
    assert proc.returncode == 2
    assert proc.stdout == ""
    error_line(proc.stderr)


# === Bad input: exit 2, one line naming the file and the line ================

BAD_INPUTS = [
    # (which file, content, message fragment, line)
    ("qrels", "q1 0 d1 1\nq1 0 d2\n", "expected 4 columns", 2),
    ("qrels", "q1 0 d1 1\nq1 0 d2 1 extra\n", "expected 4 columns", 2),
    ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n", "expected at least 6 columns", 2),
    ("run", "q1 Q0 d1 1 high t\n", "score must be a number", 1),
    ("qrels", "q1 0 d1 1\nq1 0 d2 yes\n", "relevance must be an integer", 2),
    ("qrels", "q1 0 d1 1\nq1 0 d2 1.5\n", "relevance must be an integer", 2),
    ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 nan t\n", "NaN", 2),
    ("run", "q1 Q0 d1 1 0.5 t\n\xff\n", "UTF-8", 2),
]


@pytest.mark.parametrize("which, content, fragment, line", BAD_INPUTS)
def test_bad_input_exits_2_naming_file_and_line(tmp_path, files, which, content, fragment, line):
    raw = content.encode("latin-1")
    bad = write(tmp_path, f"bad.{which}", raw)
    argv = [bad, files[1]] if which == "qrels" else [files[0], bad]
    code, out, err = run_cli("-m", "map", *argv)
    assert code == 2
    assert out == ""
    msg = error_line(err)
    assert f"{bad}, line {line}:" in msg
    assert fragment in msg


def test_duplicate_doc_in_run_names_both_lines(tmp_path, files):
    bad = write(tmp_path, "dup.run", "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.8 t\nq1 Q0 d1 3 0.7 t\n")
    code, out, err = run_cli(files[0], bad)
    assert code == 2
    msg = error_line(err)
    assert f"{bad}, line 3:" in msg
    assert "'d1'" in msg and "'q1'" in msg
    assert "lines 1 and 3" in msg


def test_duplicate_doc_in_qrels_names_both_lines(tmp_path, files):
    bad = write(tmp_path, "dup.qrels", "q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n")
    code, out, err = run_cli(bad, files[1])
    assert code == 2
    msg = error_line(err)
    assert f"{bad}, line 3:" in msg
    assert "lines 1 and 3" in msg


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_empty_file(tmp_path, files, which):
    empty = write(tmp_path, "empty", "")
    argv = [empty, files[1]] if which == "qrels" else [files[0], empty]
    code, out, err = run_cli(*argv)
    assert code == 2
    msg = error_line(err)
    assert str(empty) in msg and "empty" in msg.split(str(empty), 1)[1]


def test_directory(tmp_path, files):
    code, out, err = run_cli(files[0], tmp_path)
    assert code == 2
    assert str(tmp_path) in error_line(err)


def test_missing_file(tmp_path, files):
    missing = tmp_path / "nope.txt"
    code, out, err = run_cli(missing, files[1])
    assert code == 2
    msg = error_line(err)
    assert str(missing) in msg
    assert "No such file" in msg


@pytest.mark.parametrize(
    "name, suggestion",
    [("ndgc_cut.10", "ndcg_cut"), ("nDGC@10", "nDCG"), ("mpa", "map")],
)
def test_unknown_measure_suggests(files, name, suggestion):
    code, out, err = run_cli("-m", name, *files)
    assert code == 2
    assert out == ""
    msg = error_line(err)
    assert repr(name) in msg
    assert "did you mean" in msg
    assert f"'{suggestion}'" in msg.split("did you mean", 1)[1]


def test_bad_measure_parameter_exits_2(files):
    code, out, err = run_cli("-m", "P@0", *files)
    assert code == 2
    assert "P@0" in error_line(err)


@pytest.mark.slow
def test_bad_input_subprocess_exit_2_no_traceback(tmp_path, files):
    bad = write(tmp_path, "bad.run", "q1 Q0 d1 1 high t\n")
    proc = run_subprocess(files[0], bad)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"irmetrics: error: {bad}, line 1: score must be a number (got 'high')\n"


def test_printed_name_of_gain_map_measure_can_be_given_back(files):
    # The name on an output line must be usable as -m to get that line again.
    # nDCG with gains 1 -> 0.5, 2 -> 3 (q1: a=d1(1) d2(0) d4(-): DCG 0.5;
    # ideal d3(3), d1(0.5): 3 + 0.5/log2(3) = 3.31546 -> 0.15081; q2: d5(0) d1(1):
    # 0.5/log2(3) over 0.5 = 0.63093; mean 0.39087)
    code, out, err = run_cli("-m", "nDCG(gain=1=0.5,2=3)", *files)
    assert code == 0, err
    (name, qid, value), = parse_trec(out)
    assert value == "0.3909"
    code2, out2, err2 = run_cli("-m", name.strip(), *files)
    assert code2 == 0, err2
    assert out2 == out


def test_a_measure_asked_twice_is_printed_once(capsys):
    # set_F.4 (trec_eval's parameter is beta squared), F(beta=2) and
    # SetF(beta=4) (ir_measures hands beta to trec_eval as is) are one measure;
    # map and AP too.
    from irmetrics.cli import main

    qrels = "tests/data/trec_eval/qrels.test"
    run = "tests/data/trec_eval/results.test"
    assert main([qrels, run, "-m", "set_F.4", "-m", "F(beta=2)", "-m", "SetF(beta=4)", "-m", "map", "-m", "AP"]) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert names == ["map", "set_F_4"]


# === The exit-code convention (issue 18, finding 12) =========================
#
# One row of irmetrics.cli.EXIT_CODES per test below; docs/cli.md and every
# command's --help show the same table.

import re  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

from irmetrics.cli import EXIT_CODES, main  # noqa: E402


@pytest.mark.slow
def test_exit_code_table_is_the_one_in_the_docs_and_in_help():
    assert [code for code, _ in EXIT_CODES] == [0, 2, 130, 1]
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| (\d+) \| (.*) \|$", page, re.M)
    assert [(int(c), t) for c, t in documented] == list(EXIT_CODES)
    for argv, prog in (([], "irmetrics"), (["compare"], "irmetrics compare"),
                       (["explain"], "irmetrics explain"), (["ties"], "irmetrics ties")):
        proc = run_subprocess(*argv, "--help")
        assert proc.returncode == 0 and proc.stderr == ""
        epilog = proc.stdout.split("exit status:\n", 1)[1]
        flat = " ".join(epilog.split())
        for code, text in EXIT_CODES:
            assert f"{code} {text}" in flat
        assert f"'{prog}: error: ...', never a traceback" in flat


@pytest.mark.slow
def test_row_0_success_with_a_warning(files, tmp_path):
    extra = write(tmp_path, "extra.run", RUN + "q9 Q0 d1 1 0.5 myrun\n")
    proc = run_subprocess("-m", "map", files[0], extra)
    assert proc.returncode == 0
    assert proc.stderr == "irmetrics: warning: 1 run query has no judgments and was skipped: 'q9'\n"
    assert proc.stdout == "map                   \tall\t0.5000\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--no-such-option", "QRELS", "RUN"], "irmetrics: error: unrecognized arguments: "
         "--no-such-option (see 'irmetrics --help')"),
        (["-l", "0", "QRELS", "RUN"], "irmetrics: error: -l must be a relevance level >= 1 (got 0)"),
        (["--workers", "-1", "QRELS", "RUN"], "irmetrics: error: --workers must be >= 1 (got -1)"),
        (["-m", "nope", "QRELS", "RUN"], "irmetrics: error: unknown measure 'nope'"),
        (["QRELS", "DIR"], "irmetrics: error: DIR: cannot open file (Is a directory)"),
        (["DIR", "RUN"], "irmetrics: error: DIR: cannot open file (Is a directory)"),
        (["compare", "QRELS", "RUN", "-m", "map"],
         "irmetrics compare: error: needs at least two runs (got 1)"),
        (["compare", "QRELS", "RUN", "RUN", "-m", "map"],
         "irmetrics compare: error: a run file is given twice"),
        (["compare", "QRELS", "RUN", "DIR", "-m", "map"],
         "irmetrics compare: error: DIR: cannot open file (Is a directory)"),
        (["compare", "QRELS", "RUN", "RUN2", "-m", "map", "-M", "-1"],
         "irmetrics compare: error: -M must be a depth >= 0 (got -1)"),
    ],
)
@pytest.mark.slow
def test_row_2_usage_and_input_errors_are_one_line(files, tmp_path, argv, message):
    run2 = write(tmp_path, "run2.txt", RUN)
    names = {"QRELS": files[0], "RUN": files[1], "RUN2": run2, "DIR": tmp_path}
    argv = [str(names.get(a, a)) for a in argv]
    message = message.replace("DIR", str(tmp_path))
    proc = run_subprocess(*argv)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(message) and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_row_2_a_write_error_is_one_line(files):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")  # Linux has it
    with open("/dev/full", "w") as full:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, "-m", "irmetrics", *map(str, files)],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "irmetrics: error: No space left on device\n"


def _interrupted(argv, stdin):
    """Start the CLI blocked on a read, send it SIGINT; return (code, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "irmetrics", *map(str, argv)], stdin=stdin,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(ROOT),
        # A shell's background job ignores SIGINT, and so would the child.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(1.5)  # let it start and block on its input
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_row_130_ctrl_c_while_reading_a_fifo(files, tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)  # nobody writes: the CLI blocks opening it
    code, out, err = _interrupted([files[0], fifo], subprocess.DEVNULL)
    assert (code, out, err) == (130, "", "irmetrics: interrupted\n")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_row_130_ctrl_c_while_reading_standard_input(files):
    read_end, write_end = os.pipe()  # kept open and empty: the CLI blocks reading
    try:
        code, out, err = _interrupted([files[0], "-"], read_end)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert (code, out, err) == (130, "", "irmetrics: interrupted\n")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_row_130_ctrl_c_in_compare(files):
    read_end, write_end = os.pipe()
    try:
        code, out, err = _interrupted(
            ["compare", files[0], files[1], "/dev/stdin", "-m", "map"], read_end)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert (code, out, err) == (130, "", "irmetrics compare: interrupted\n")


def test_row_1_an_internal_error_is_one_line(monkeypatch, capsys):
    def broken(args, stdout, stderr):
        raise IndexError("list index out of range")

    monkeypatch.setattr(irmetrics.cli, "_evaluate_command", broken)
    assert main(["q", "r"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("irmetrics: internal error (please report it): IndexError: "
                            "list index out of range\n")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["trec", "json", "csv"])
def test_a_closed_output_pipe_ends_quietly(tmp_path, fmt):
    # 3000 queries, -q -m all_trec: megabytes of output, far more than a pipe holds.
    qrels = write(tmp_path, "q", "".join(f"{q} 0 d1 1\n" for q in range(3000)))
    run = write(tmp_path, "r", "".join(f"{q} Q0 d1 1 1.0 t\n" for q in range(3000)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "irmetrics", "-q", "-m", "all_trec", "--format", fmt, qrels, run],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    first = proc.stdout.readline()   # what `| head -1` reads,
    proc.stdout.close()              # then it goes away
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 0
    assert first and err == b""


@pytest.mark.parametrize("command", [[], ["compare"]])
def test_row_2_an_unreadable_file_is_one_line(files, tmp_path, monkeypatch, command):
    # As root a chmod 000 file stays readable, so the OSError is raised for it.
    def unreadable(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Qrels, "from_trec", unreadable)
    import irmetrics.sources  # evaluate() reads a qrels file there
    monkeypatch.setattr(irmetrics.sources, "_read_qrels_tables", unreadable)
    argv = [*command, files[0], files[1]] + ([write(tmp_path, "r2.txt", RUN), "-m", "map"] if command else [])
    code, out, err = run_cli(*argv)
    prog = "irmetrics compare" if command else "irmetrics"
    assert (code, out, err) == (2, "", f"{prog}: error: {files[0]}: Permission denied\n")


# === Closed standard streams (issue 42) ======================================
# A shell's `>&-`, `2>&-` and `<&-` start the process without that file
# descriptor: Python then has sys.stdout (sys.stderr, sys.stdin) None.
# (stdin=subprocess.DEVNULL is an open stream, not a closed one.)

RUN2 = RUN.replace("0.9", "0.1").replace("myrun", "other")  # q1: d2 d4 d1
COMMANDS = {
    "main": ["-m", "map", "Q", "R"],
    "explain": ["explain", "-m", "map", "Q", "R", "q1"],
    "ties": ["ties", "-m", "map", "Q", "R"],
    "compare": ["compare", "-m", "map", "Q", "R", "R2"],
}


def run_closed(fd, argv, files, tmp_path):
    """irmetrics in a process started with file descriptor *fd* closed."""
    run2 = write(tmp_path, "other.txt", RUN2)
    names = {"Q": files[0], "R": files[1], "R2": run2}
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "irmetrics", *[str(names.get(a, a)) for a in argv]],
        capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=120,
        preexec_fn=lambda: os.close(fd),
    )


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="closes a file descriptor in the child (POSIX)")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_closed_standard_output_is_a_usage_error(files, tmp_path, command):
    proc = run_closed(1, COMMANDS[command], files, tmp_path)
    prog = "irmetrics" if command == "main" else f"irmetrics {command}"
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"{prog}: error: standard output is closed: there is nowhere to "
                           "write the results (redirect it, e.g. '> results.txt')\n")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="closes a file descriptor in the child (POSIX)")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_closed_standard_error_keeps_the_output_and_exit_status(files, tmp_path, command):
    proc = run_closed(2, COMMANDS[command], files, tmp_path)
    assert proc.returncode == 0
    # the same output as with standard error open
    assert proc.stdout == run_subprocess(*run_closed_argv(command, files, tmp_path)).stdout
    assert proc.stdout


def run_closed_argv(command, files, tmp_path):
    names = {"Q": files[0], "R": files[1], "R2": tmp_path / "other.txt"}
    return [names.get(a, a) for a in COMMANDS[command]]


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="closes a file descriptor in the child (POSIX)")
def test_a_closed_standard_error_still_exits_2_on_bad_input(files, tmp_path):
    proc = run_closed(2, ["-m", "mapp", "Q", "R"], files, tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="closes a file descriptor in the child (POSIX)")
@pytest.mark.parametrize("argv", [
    ["-m", "map", "Q", "-"],
    ["explain", "-m", "map", "Q", "-", "q1"],
    ["ties", "-m", "map", "Q", "-"],
])
def test_a_closed_standard_input_for_dash_is_a_usage_error(files, tmp_path, argv):
    proc = run_closed(0, argv, files, tmp_path)
    prog = "irmetrics" if argv[0] == "-m" else f"irmetrics {argv[0]}"
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"{prog}: error: standard input is closed, and RUN '-' reads the "
                           "run from it: give the run's file name, or pipe the run in\n")


# === Control characters do not reach a terminal (issue 42) ===================

# An OSC 8 hyperlink and a window title: a terminal obeys both.
OSC = "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07"
TITLE = "\x1b]0;owned\x07"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_ids_on_a_terminal_have_no_control_characters(tmp_path):
    qrels = write(tmp_path, "q", f"q{TITLE} 0 d1 1\n")
    run = write(tmp_path, "r", f"q{TITLE} Q0 d1 1 1.0 run{OSC}\n")
    for fmt in ("trec", "csv"):
        out, err = Terminal(), io.StringIO()
        assert _run(["-q", "-m", "runid", "-m", "P_5", "--format", fmt, str(qrels), str(run)],
                    out, err) == 0
        assert not any(c in out.getvalue() for c in "\x1b\x07"), out.getvalue()
    # the control characters' runs as spaces; the output's tabs and lines kept
    assert [(n.rstrip(), q, v) for n, q, v in parse_trec(_terminal_output(qrels, run))] == [
        ("P_5", "q ]0;owned ", "0.2000"),  # 1 relevant in the top 5
        ("runid", "all", "run ]8;;http://evil.example/ click ]8;; "),
        ("P_5", "all", "0.2000"),
    ]


def _terminal_output(qrels, run):
    out = Terminal()
    _run(["-q", "-m", "runid", "-m", "P_5", str(qrels), str(run)], out, io.StringIO())
    return out.getvalue()


def test_ids_redirected_are_written_as_the_file_has_them(tmp_path):
    # Not a terminal: trec_eval's output, byte for byte (ids as they are).
    qrels = write(tmp_path, "q", f"q{TITLE} 0 d1 1\n")
    run = write(tmp_path, "r", f"q{TITLE} Q0 d1 1 1.0 run\n")
    code, out, _ = run_cli("-q", "-m", "P_5", qrels, run)
    assert code == 0 and out.startswith(f"P_5                   \tq{TITLE}\t0.2000\n")


def test_ties_prints_query_ids_without_control_characters(tmp_path):
    qrels = write(tmp_path, "q", f"q{OSC} 0 a 1\n")
    run = write(tmp_path, "r", f"q{OSC} Q0 a 1 1.0 t\nq{OSC} Q0 b 2 1.0 t\n")
    code, out, err = run_cli("ties", "-m", "recip_rank", qrels, run)
    assert (code, err) == (0, "")
    assert not any(c in out for c in "\x1b\x07"), out
    # a and b tied: recip_rank worst 1/2, trec_eval's 1/2 (b first: document id
    # descending), expected (1 + 1/2) / 2, best 1, spread 1/2
    assert out.splitlines()[2].split() == ["q", "]8;;http://evil.example/", "click", "]8;;",
                                           "0.5000", "0.5000", "0.7500", "1.0000", "0.5000"]


def test_error_messages_quote_file_names_without_control_characters(files):
    code, out, err = run_cli(files[0], f"missing{TITLE}.run")
    assert code == 2 and "\x1b" not in err and "\x07" not in err
    assert "missing ]0;owned .run" in error_line(err)


# === Long values in messages are cut (issue 42) ==============================


def test_a_long_query_id_is_cut_in_messages_with_its_length(tmp_path):
    qid = "a" * 1_000_000
    qrels = write(tmp_path, "q", f"{qid} 0 d1 1\n{qid} 0 d1 1\n")
    run = write(tmp_path, "r", f"{qid} Q0 d1 1 1.0 t\n")
    code, out, err = run_cli("-m", "map", qrels, run)
    line = error_line(err)
    assert code == 2 and len(line) < 300
    assert "appears twice for query 'aaaa" in line and "aaa' (1,000,000 characters)" in line


def test_a_long_measure_name_is_cut_in_messages(files):
    code, out, err = run_cli("-m", "b" * 100_000, *files)
    line = error_line(err)
    assert code == 2 and len(line) < 300 and "(100,000 characters)" in line


# === --ndeval keeps the file's text (issue 42) ===============================

NDEVAL_QRELS = "1 1 d1 1\n01 1 d1 1\n"


def test_ndeval_orders_ranks_beyond_doubles_exactly(tmp_path):
    # 2**53 + 1 and 2**53 are one double: d2 (rank 2**53) comes first, then
    # d1 (rank 2**53 + 1), the only relevant document: at rank 2,
    # P-IA@5 = 1/5 = 0.2 and alpha-nDCG@5 = (1/log2(3)) / 1 = 0.630930.
    qrels = write(tmp_path, "q", "1 1 d1 1\n")
    run = write(tmp_path, "r", f"1 Q0 d1 {2**53 + 1} 9 t\n1 Q0 d2 {2**53} 1 t\n")
    code, out, err = run_cli("--ndeval", qrels, run)
    assert (code, err) == (0, "")
    row = dict(zip(out.splitlines()[0].split(","), out.splitlines()[1].split(",")))
    assert row["P-IA@5"] == "0.200000" and row["alpha-nDCG@5"] == "0.630930"


def test_ndeval_repeated_rank_is_named_as_the_file_writes_it(tmp_path):
    qrels = write(tmp_path, "q", "1 1 d1 1\n")
    big = "99999999999999999999999"
    run = write(tmp_path, "r", f"1 Q0 d1 {big} 1 t\n1 Q0 d2 {big} 1 t\n")
    code, _, err = run_cli("--ndeval", qrels, run)
    assert code == 2 and error_line(err).endswith(f"rank {big} appears twice for query '1'")
    # distinct ranks, one double: not a repeat
    run = write(tmp_path, "r", f"1 Q0 d1 {big} 1 t\n1 Q0 d2 {big[:-1]}8 1 t\n")
    assert run_cli("--ndeval", qrels, run)[0] == 0
    run = write(tmp_path, "r", "1 Q0 d1 01 1 t\n1 Q0 d2 1 1 t\n")
    code, _, err = run_cli("--ndeval", qrels, run)
    assert code == 2 and error_line(err).endswith("ranks 01 and 1 are one rank for query '1'")


def test_ndeval_prints_topics_as_the_file_writes_them(tmp_path):
    qrels = write(tmp_path, "q", NDEVAL_QRELS)
    run = write(tmp_path, "r", "1 Q0 d1 1 1 t\n01 Q0 d1 1 1 t\n")
    code, out, err = run_cli("--ndeval", qrels, run)
    assert code == 0
    assert [line.split(",")[1] for line in out.splitlines()] == ["topic", "01", "1", "amean"]


# === -R, trec_eval's qrels formats (issue 42) ================================


def test_rel_info_format_names_the_formats(files):
    # trec_eval's four formats are read (tests/test_trec_eval_rest.py); another is a usage error
    code, out, err = run_cli("-R", "trec_results", *files)
    line = error_line(err)
    assert code == 2 and out == ""
    assert line.startswith("irmetrics: error: argument -R/--Rel_info_format/--rel_info_format: invalid choice: "
                           "'trec_results' (choose from")
    assert all(f"'{fmt}'" in line for fmt in ("qrels", "qrels_jg", "prefs", "qrels_prefs"))


def test_rel_info_format_qrels_is_the_default(files):
    assert run_cli("-R", "qrels", "-m", "map", *files) == run_cli("-m", "map", *files)
    assert run_cli("-Rqrels", "-m", "map", *files)[0] == 0


def test_a_long_run_query_id_is_cut_when_no_query_is_judged(tmp_path, files):
    run = write(tmp_path, "r", "z" * 1_000_000 + " Q0 d1 1 1.0 t\n")
    code, out, err = run_cli("-m", "map", files[0], run)
    line = error_line(err)
    assert code == 2 and len(line) < 300
    assert line.startswith("irmetrics: error: no query is both in the run and in the qrels "
                           "(run: 'zzz") and "zzz' (1,000,000 characters); qrels: 'q1', 'q2')" in line


# === A run from standard input, a pipe or a FIFO ===============================
# A stream is read once: an ungrouped run must be re-read from the copy of what
# was read, and standard input is spooled in bounded memory.


def _irmetrics_process(argv, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "irmetrics", *map(str, argv)],
                          capture_output=True, env=env, cwd=ROOT, **kwargs)


def _ungrouped_files(tmp_path, n_queries=50, depth=400, seed=1):
    """A run of *n_queries* x *depth* lines in random order, and its qrels."""
    rng = random.Random(seed)
    lines = [f"q{q} Q0 d{d} {d} {rng.random():.6f} run\n"
             for q in range(n_queries) for d in range(depth)]
    rng.shuffle(lines)
    run = tmp_path / "ungrouped.run"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.randint(0, 2)}\n"
                             for q in range(n_queries) for d in range(0, depth, 7)))
    return qrels, run


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_ungrouped_run_from_a_pipe_a_fifo_or_stdin_gives_the_file_s_numbers(tmp_path):
    # Guards the re-reading of an ungrouped run from a stream.  Before
    # (issue 18, finding 1): the fallback re-opened the path or reused the
    # stream and saw only the unread rest: 49 queries / 48,672 documents
    # instead of 50 / 100,000.
    qrels, run = _ungrouped_files(tmp_path)
    argv = ["-m", "num_q", "-m", "num_ret", "-m", "map", "-m", "P_10"]
    by_path = _irmetrics_process([*argv, qrels, run])
    assert by_path.returncode == 0 and b"num_ret               \tall\t20000\n" in by_path.stdout
    data = run.read_bytes()
    for name in ("-", "/dev/stdin"):
        piped = _irmetrics_process([*argv, qrels, name], input=data)
        assert (piped.returncode, piped.stdout) == (0, by_path.stdout), name
    gz = gzip.compress(data)
    piped = _irmetrics_process([*argv, qrels, "-"], input=gz)
    assert (piped.returncode, piped.stdout) == (0, by_path.stdout)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "irmetrics", *argv, str(qrels), str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    with open(fifo, "wb") as f:
        f.write(data)
    out, _ = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (0, by_path.stdout)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_standard_input_is_read_in_constant_memory(tmp_path):
    # Guards the bounded spool of standard input.  Before (issue 18,
    # finding 5): the binary probe read all of standard input (2.17 GB for a
    # 1.1 GB stream).  A 68 MB stream (gzip-compressed) must stay well below 68 MB.
    block = "".join(f"Q0 d{d} {d} {1000 - d}.5 run\n" for d in range(1000))
    text = "".join(block.replace("Q0", f"q{q} Q0") for q in range(2500))
    assert len(text) > 65_000_000
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d3 1\n" for q in range(2500)))
    # The peak resident memory of the command itself (VmHWM is reset by exec,
    # unlike ru_maxrss, which counts the forked copy of this test process).
    code = ("import sys, irmetrics.cli as c; rc = c.main(sys.argv[1:]); "
            "sys.stderr.write(open('/proc/self/status').read()); sys.exit(rc)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    data = gzip.compress(text.encode(), compresslevel=1)
    done = subprocess.run([sys.executable, "-c", code, "-m", "num_ret", str(qrels), "-"],
                          input=data, capture_output=True, env=env, cwd=ROOT)
    assert done.returncode == 0
    assert done.stdout == b"num_ret               \tall\t2500000\n"
    peak = next(int(line.split()[1]) for line in done.stderr.decode().splitlines()
                if line.startswith("VmHWM:"))
    assert peak < 50_000  # KiB: the interpreter, the tables, a 4 MiB spool


# --- --cost-file: cwl-eval's cost file (the run's second column names each document's type)

def test_cost_file_gives_evaluates_costs(files, tmp_path):
    qrels, run = files
    costs = write(tmp_path, "costs", "Q0 2.5\n")  # every document of RUN is of type Q0
    by_doc = {q: {d: 2.5 for d in docs} for q, docs in
              {"q1": ["d1", "d2", "d4"], "q2": ["d5", "d1"]}.items()}
    want = irmetrics.evaluate(str(qrels), str(run), "TBG(H=3,max_rel=2,quantity=EC)",
                              costs=by_doc).per_query
    code, out, err = run_cli("-q", "-m", "TBG(H=3,max_rel=2,quantity=EC)", "--cost-file", costs,
                             qrels, run)
    assert code == 0, err
    name = "TBG(H=3,max_rel=2,quantity=EC)"
    assert [line.split("\t")[2] for line in out.splitlines()[:2]] == [
        f"{want['q1'][name]:.4f}", f"{want['q2'][name]:.4f}"]
    assert want["q1"][name] > 1.0  # EC over unit costs is 1: the costs were read
    code, out, err = run_cli("explain", "-m", name, "--cost-file", costs, "--format", "json",
                             qrels, run, "q1")
    assert code == 0, err
    assert json.loads(out)["value"] == want["q1"][name]


@pytest.mark.parametrize("text, message", [
    ("Q0 x\n", "costs, line 1: the cost must be a number (got b'x')"),
    ("# types\nQ0 -1\n", "costs, line 2: the cost must be a finite number >= 0 (got -1.0)"),
    ("Q0 1 2\n", "costs, line 1: expected 2 columns (element_type cost), got 3"),
])
def test_cost_file_errors_name_the_file_and_line(files, tmp_path, text, message):
    qrels, run = files
    code, _, err = run_cli("-m", "TBG", "--cost-file", write(tmp_path, "costs", text), qrels, run)
    assert code == 2
    assert err.startswith("irmetrics: error: ") and err.rstrip().endswith(message), err


def test_cost_file_needs_the_run_in_a_file(files, tmp_path):
    qrels, _ = files
    code, _, err = run_cli("-m", "TBG", "--cost-file", write(tmp_path, "costs", "Q0 1\n"),
                           qrels, "-")
    assert code == 2 and "give the run as a file, not '-'" in err
    short = write(tmp_path, "short", "q1 Q0 d1 1 0.9\n")
    code, _, err = run_cli("-m", "TBG", "--cost-file", tmp_path / "costs", qrels, short)
    assert code == 2 and "short, line 1: expected 6 columns" in err, err
