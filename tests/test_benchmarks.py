"""benchmarks/run.py measures the irmetrics of the tree it is given."""

import importlib.util
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_runner():
    # benchmarks/run.py under a name of its own (it imports its sibling generate.py)
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        "irmetrics_benchmark_runner", os.path.join(ROOT, "benchmarks", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = _load_runner()


@pytest.fixture
def old_tree(tmp_path):
    """A second source tree: a copy of this checkout's package."""
    shutil.copytree(os.path.join(ROOT, "irmetrics"), tmp_path / "old" / "irmetrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return str(tmp_path / "old")


@pytest.mark.slow
def test_each_tree_imports_its_own_irmetrics(old_tree):
    assert run.imported_from(old_tree) == os.path.realpath(os.path.join(old_tree, "irmetrics"))
    assert run.imported_from(run.ROOT) == os.path.realpath(os.path.join(ROOT, "irmetrics"))


@pytest.mark.slow
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


def test_an_empty_pythonpath_entry_adds_no_current_directory(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "")
    assert run.tree_env("/x")["PYTHONPATH"] == "/x"
    monkeypatch.setenv("PYTHONPATH", "/a" + os.pathsep + os.pathsep + "/b")
    assert run.tree_env("/x")["PYTHONPATH"].split(os.pathsep) == ["/x", "/a", "/b"]
