"""docs/examples/notebook.ipynb runs top to bottom in a real Jupyter kernel.

The kernel is ipykernel on this interpreter (``sys.executable``): a
``python3`` kernel spec for it is written to a temporary directory put first
on ``JUPYTER_PATH``, so that a ``python3`` kernel installed elsewhere on the
machine (another Python, without irmetrics) is never the one started.
matplotlib draws with matplotlib_inline's backend, Agg rendering to PNG
images in the cell outputs, with no display needed.
"""

import os
import sys
from pathlib import Path

import pytest
from oracles import require

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
NOTEBOOK = EXAMPLES / "notebook.ipynb"


def test_notebook_is_committed_without_outputs():
    nbformat = require("nbformat")
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) >= 6
    assert [c.outputs for c in code] == [[] for _ in code]
    assert [c.execution_count for c in code] == [None for _ in code]
    assert nb.metadata.kernelspec.name == "python3"


@pytest.mark.slow
def test_notebook_runs_in_a_jupyter_kernel(tmp_path, monkeypatch):
    nbformat = require("nbformat")
    nbclient = require("nbclient")
    require("ipykernel")
    require("matplotlib")
    require("pandas")
    from ipykernel.kernelspec import write_kernel_spec
    from jupyter_client.kernelspec import KernelSpecManager

    spec_dir = tmp_path / "kernels" / "python3"
    write_kernel_spec(path=str(spec_dir))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))   # no profile of the machine
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir) == spec_dir
    assert spec.argv[0] == sys.executable

    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    n_cells = len(nb.cells)
    # One more cell, to check which interpreter and which irmetrics the kernel ran.
    nb.cells.append(nbformat.v4.new_code_cell(
        "import sys, matplotlib; print(sys.executable); print(irmetrics.__file__); "
        "print(matplotlib.get_backend())"
    ))
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=180, resources={"metadata": {"path": str(EXAMPLES)}},
    )
    client.execute()   # raises CellExecutionError if a cell fails

    outputs = [o for c in nb.cells[:n_cells] if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    # the Evaluation's own table, and the Comparison's
    assert any(h.startswith('<table class="irmetrics-evaluation">') for h in html)
    assert any("Baseline &#x27;bm25&#x27;" in h and "<table>" in h for h in html)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3   # differences, precision-recall, distribution
    for image in images:
        assert image.data["image/png"].startswith("iVBORw0KGgo")   # base64 of the PNG signature

    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs).split("\n")
    assert printed[0] == sys.executable
    assert Path(printed[1]) == ROOT / "irmetrics" / "__init__.py"
    assert "inline" in printed[2]
