"""benchmarks/run.py measures the irmetrics of the tree it is given."""

import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import run  # noqa: E402


@pytest.fixture
def old_tree(tmp_path):
    """A second source tree: a copy of this checkout's package."""
    shutil.copytree(os.path.join(ROOT, "irmetrics"), tmp_path / "old" / "irmetrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return str(tmp_path / "old")


def test_each_tree_imports_its_own_irmetrics(old_tree):
    assert run.imported_from(old_tree) == os.path.realpath(os.path.join(old_tree, "irmetrics"))
    assert run.imported_from(run.ROOT) == os.path.realpath(os.path.join(ROOT, "irmetrics"))


def test_measured_processes_start_outside_the_checkout(old_tree, monkeypatch):
    # Started in the checkout, a "-c" process would import the checkout's
    # irmetrics whatever PYTHONPATH says; measure() starts it elsewhere.
    monkeypatch.chdir(ROOT)
    code = """
        import os, sys
        import irmetrics
        sys.exit(0 if os.path.dirname(irmetrics.__file__) == sys.argv[1] else 3)
    """
    wall, cpu, rss = run.measure(code, [os.path.join(old_tree, "irmetrics")], old_tree)
    assert wall > 0 and rss > 0
    with pytest.raises(RuntimeError, match="failed"):
        run.measure(code, [os.path.join(ROOT, "irmetrics")], old_tree)
