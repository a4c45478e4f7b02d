"""Shared test configuration: the hypothesis profiles.

``HYPOTHESIS_PROFILE`` picks the profile; without it, CI runs (``CI=true``)
use "ci" (derandomised, so a red build is reproducible) and local runs "dev".
"""

import os

import pytest
from hypothesis import settings

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
    # slow: the tests that start a process (a subprocess, a forked worker, a
    # Dask cluster), a JVM or a Jupyter kernel. `pytest -m "not slow"` runs the
    # others: what .ci/run runs on the oldest and newest supported Python.
    config.addinivalue_line(
        "markers",
        "slow: starts a process, a JVM or a Jupyter kernel (deselect with -m 'not slow')",
    )


# The doc pages whose >>> examples start worker processes (a doctest takes no
# decorator: its page is marked slow here).
SLOW_PAGES = {"large-runs.md"}


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    for item in items:
        if type(item).__name__ == "DoctestItem" and item.path.name in SLOW_PAGES:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    """On CI, a skipped test is a failed test: every oracle must be present.

    The exemption: a test marked ``spark`` may be skipped (it says why).
    """
    outcome = yield
    report = outcome.get_result()
    exempt = item.get_closest_marker("spark") is not None
    if _default == "ci" and report.skipped and not hasattr(report, "wasxfail") and not exempt:
        report.outcome = "failed"
        report.longrepr = f"skipped on CI, where every test must run: {report.longrepr}"
