"""Shared test configuration: the hypothesis profiles, the markers, the quick run.

``HYPOTHESIS_PROFILE`` picks the profile; without it, CI runs (``CI=true``)
use "ci" (derandomised, so a red build is reproducible) and local runs "dev".
The quick run (``-m "not slow"``) runs fewer examples of each property test:
see "The quick run" below.
"""

import os
import subprocess
import sys
from pathlib import Path

# The oracles' linear algebra (numpy's OpenBLAS, under scipy and statsmodels) in
# one thread, set before anything imports numpy: its threads spin while they
# wait, and on a machine whose cores are busy (CI runs the main suite and the
# quick tests side by side on two cores) they wait most of the time. One thread
# computes the same oracle values (within the tests' tolerances).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# The Pythons the tests start (the CLI, scripts, a fresh pytest for the fork
# tests: a few hundred) import irmetrics again.  Where the environment forbids
# bytecode files (PYTHONDONTWRITEBYTECODE), each would compile every module of
# irmetrics anew: its bytecode is made once here instead, beside the sources
# as Python keeps it (where the children read it; the other libraries have
# theirs from their installation), and removed at the session's end, so that
# the tree stays as clean as it was asked to stay.
if os.environ.get("PYTHONDONTWRITEBYTECODE"):
    import atexit
    import compileall
    import shutil

    for _package in ("irmetrics", "irmetrics/compat"):
        _pycache = Path(__file__).resolve().parent.parent / _package / "__pycache__"
        if _pycache.parent.is_dir() and not _pycache.exists():
            compileall.compile_dir(_pycache.parent, maxlevels=0, quiet=1)
            atexit.register(shutil.rmtree, _pycache, ignore_errors=True)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", deadline=None, derandomize=True, max_examples=200)
settings.register_profile("dev", deadline=None, max_examples=100)

_default = "ci" if os.environ.get("CI", "").strip().lower() == "true" else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))


def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line(
        "markers",
        "spark: needs pyspark and Java; the one kind of test CI may skip (CI installs "
        "no Spark: a JVM and a 300 MB wheel for one test file)",
    )
    config.addinivalue_line(
        "markers",
        "tex: needs a TeX engine (pdflatex, booktabs); CI may skip it too (CI installs no "
        "TeX: about 150 MB of Debian packages to compile one table)",
    )
    config.addinivalue_line(
        "markers",
        "fork: tests worker processes forked from the test process itself; where that "
        "process runs other threads (numpy's, polars', Dask's: irmetrics never forks it "
        "then), these tests run together in a fresh pytest process",
    )
    # slow: the tests that start a process (a subprocess, a forked worker, a
    # Dask cluster), a JVM or a Jupyter kernel, and the long tail of a sweep
    # whose sample stays quick (test_conformance's random pairs). `pytest -m
    # "not slow"` runs the others: what .ci/run runs on the oldest and newest
    # supported Python (see "The quick run" below).
    config.addinivalue_line(
        "markers",
        "slow: starts a process, a JVM or a Jupyter kernel, or is the long tail of a "
        "sweep (deselect with -m 'not slow')",
    )


# The doc pages whose >>> examples start worker processes (a doctest takes no
# decorator: its page is marked slow here).
SLOW_PAGES = {"large-runs.md"}


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    for item in items:
        if type(item).__name__ == "DoctestItem" and item.path.name in SLOW_PAGES:
            item.add_marker(pytest.mark.slow)
    if _quick_run(config):
        for item in items:
            _fewer_examples(getattr(item, "obj", None))


# === The quick run: `pytest -m "not slow"` ======================================
# The quick selection (what .ci/run runs on the oldest and newest Python, and a
# developer's check while working) must take under a minute on two cores. Most
# of its time is spent in property tests, so there a property test runs
# QUICK_EXAMPLES examples where the profile runs its count ("dev" 100, "ci"
# 200), and a test with its own @settings(max_examples=N) as many in proportion
# (at least QUICK_MIN): a test that asked for more examples still gets more,
# and the quick run costs the same on CI as locally. The full suite (no -m, as
# CI runs it first) runs every property test at the count written.
#
# The one other large cost was test_conformance's 35 random pairs x 14 option
# sets, run through the command line: every 7th pair stays in the quick run,
# the others are marked slow there.
#
# (Profiled with `-p no:randomly -m "not slow" --durations=40`: property tests
# took most of the time, the largest in test_stream, test_merge, test_explain,
# test_differential, test_ties, test_correlation and test_stats; the rest,
# reading, in-process CLI runs and doc pages, take well under a second each.
# Figures go in the issue, not here: the machine's load changes them.)

QUICK_EXAMPLES = 10
QUICK_MIN = 5


def _quick_run(config):  # type: ignore[no-untyped-def]
    markexpr = " ".join((config.getoption("markexpr", "") or "").split())
    return "not slow" in markexpr


def _fewer_examples(test):  # type: ignore[no-untyped-def]
    """Give the property test *test* its quick share of examples.

    A test's settings are the object @given stores on it (the profile's, or
    its own @settings' with the profile as parent), in an attribute private to
    hypothesis, which reads it when the test runs; hypothesis has no public
    way to change a decorated test's count. Without that attribute (not a
    property test, or a hypothesis that moved it) the test is left as it is.
    """
    test = getattr(test, "__func__", test)  # (a method: its function)
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if not getattr(test, "is_hypothesis_test", False) or current is None:
        return
    if getattr(test, "_quick_examples", False):  # a parametrised test: once
        return
    share = QUICK_EXAMPLES / settings.default.max_examples  # (the profile's count)
    count = max(QUICK_MIN, round(current.max_examples * share))
    test._hypothesis_internal_use_settings = settings(
        current, max_examples=min(count, current.max_examples))
    test._quick_examples = True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    """On CI, a skipped test is a failed test: every oracle must be present.

    The exemptions: a test marked ``spark`` or ``tex`` may be skipped (it says why).
    """
    outcome = yield
    report = outcome.get_result()
    exempt = any(item.get_closest_marker(m) is not None for m in ("spark", "tex"))
    if _default == "ci" and report.skipped and not hasattr(report, "wasxfail") and not exempt:
        report.outcome = "failed"
        report.longrepr = f"skipped on CI, where every test must run: {report.longrepr}"


# === Tests of forked workers in a fresh process ================================
# irmetrics forks workers only from a process with one thread.  A test session
# that has imported numpy (or run Dask or polars) has more, so the tests marked
# ``fork`` run together in one fresh pytest process, and each reports the
# outcome it had there.

_FRESH = "IRMETRICS_TESTS_IN_FRESH_PROCESS"
_fresh_outcomes = {}


def _threads():  # (counted as irmetrics counts them)
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _run_fork_tests_afresh(session):  # type: ignore[no-untyped-def]
    ids = [i.nodeid for i in session.items if i.get_closest_marker("fork") is not None]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *ids],
        cwd=root, env=dict(os.environ, **{_FRESH: "1"}), capture_output=True, text=True,
        timeout=1800,
    )
    for line in done.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR"):
            nodeid = rest.split(" - ", 1)[0]
            _fresh_outcomes[nodeid] = (word, line)
    _fresh_outcomes[None] = ("", done.stdout[-3000:] + done.stderr[-2000:])


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):  # type: ignore[no-untyped-def]
    if (pyfuncitem.get_closest_marker("fork") is None or os.environ.get(_FRESH)
            or _threads() == 1):
        return None
    if not _fresh_outcomes:
        _run_fork_tests_afresh(pyfuncitem.session)
    word, line = _fresh_outcomes.get(pyfuncitem.nodeid, ("", ""))
    if word != "PASSED":
        pytest.fail(f"in a fresh pytest process: {line or 'no outcome'}\n"
                    f"{_fresh_outcomes[None][1]}", pytrace=False)
    return True
