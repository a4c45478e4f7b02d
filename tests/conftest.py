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
    config.addinivalue_line(
        "markers",
        "tex: needs a TeX engine (pdflatex, booktabs); CI may skip it too (CI installs no "
        "TeX: about 150 MB of Debian packages to compile one table)",
    )


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
