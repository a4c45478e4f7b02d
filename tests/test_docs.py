"""The documentation site: coverage of the API and of the registry, and the build.

The ``>>>`` examples of every page run through pytest's ``--doctest-glob``;
the ``python`` blocks run here (those whose packages are installed; see
"The python blocks" below). These tests also check what the examples cannot:
that the API reference names every
public object, that the metric reference (docs/metrics.md and the measure
table of docs/evaluate.md) names every measure the registry accepts, that
``mkdocs build --strict`` passes, and that the built site renders its formulas
as MathML and loads nothing from another host.
"""

import ast
import contextlib
import importlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

import pytest
from oracles import ON_CI, require

import irmetrics
from irmetrics import compare, evaluate
from irmetrics.measures import FAMILIES, known_names

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The metric reference: one section per metric function, and the table of
# every measure name with its trec_eval and ir_measures spellings.
METRIC_REFERENCE = ("metrics.md", "evaluate.md")


def page(name):
    return (DOCS / name).read_text(encoding="utf-8")


def load_hook(name):
    spec = importlib.util.spec_from_file_location(f"irmetrics_docs_{name}", DOCS / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# === The API reference =======================================================


def directives():
    return re.findall(r"^::: *([\w.]+) *$", page("api.md"), re.M)


def test_api_reference_directives_name_importable_objects():
    assert directives(), "docs/api.md has no ::: directive"
    for target in directives():
        assert target.startswith("irmetrics."), target
        module, _, attr = target.rpartition(".")
        try:
            importlib.import_module(target)
        except ImportError:
            assert hasattr(importlib.import_module(module), attr), target


def test_every_public_name_is_in_the_api_reference():
    text = page("api.md")
    targets = set(directives())
    modules = [importlib.import_module(t) for t in targets if t.count(".") == 1]
    missing = []
    for name in irmetrics.__all__:
        covered = (
            any(f"{m.__name__}.{name}" in targets for m in modules)
            or any(name in getattr(m, "__all__", ()) for m in modules)
            or f"`irmetrics.{name}`" in text
        )
        if not covered:
            missing.append(name)
    assert missing == []


def test_every_public_module_is_in_the_api_reference():
    public = sorted(
        f"irmetrics.{p.stem}" for p in (ROOT / "irmetrics").glob("*.py")
        if not p.stem.startswith("_")
    )
    assert sorted(set(public) - set(directives())) == []


# === The metric reference ====================================================


def test_every_measure_name_is_in_the_metric_reference():
    text = "\n".join(page(name) for name in METRIC_REFERENCE)
    quoted = set(re.findall(r"`([^`\n]+)`", text))
    names = set(known_names())
    for f in FAMILIES:
        names.update(n for n in (f.trec, f.ir) if n)
    assert names, "the registry is empty"
    assert sorted(n for n in names if n not in quoted) == []


def test_every_metric_function_has_a_section_with_a_formula():
    text = page("metrics.md")
    for name in irmetrics.metrics.__all__:
        m = re.search(rf"^### `{name}`\n(.*?)(?=^##)", text, re.M | re.S)
        assert m, f"docs/metrics.md has no section for {name}"
        assert "$$" in m.group(1), f"the section of {name} shows no display formula"


# === Pages whose examples are checked here ===================================


def test_getting_started_html_table_is_what_jupyter_shows():
    m = re.search(
        r'<!-- example: compare html -->\n<div class="notebook-output">\n(.*?)\n</div>',
        page("getting-started.md"), re.S,
    )
    assert m, "docs/getting-started.md has no compare html block"
    runs = {"bm25": "docs/examples/bm25.run", "rerank": "docs/examples/rerank.run"}
    result = compare(str(DOCS / "examples" / "qrels.txt"),
                     {k: str(ROOT / v) for k, v in runs.items()}, ["map", "P@5", "nDCG@10"])
    assert result._repr_html_() == m.group(1)


def test_getting_started_pandas_example_prints_what_the_page_shows(monkeypatch):
    # pandas is in the docs extra, not a dependency of irmetrics.
    require("pandas")
    m = re.search(
        r"<!-- example: pandas per-query -->\n```python\n(.*?)```\n\n```text\n(.*?)```",
        page("getting-started.md"), re.S,
    )
    assert m, "docs/getting-started.md has no pandas block"
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(m.group(1), "getting-started.md", "exec"), {})
    assert out.getvalue() == m.group(2)


def test_the_index_example_agrees_with_evaluate():
    result = evaluate(str(DOCS / "examples" / "qrels.txt"), str(DOCS / "examples" / "bm25.run"), "map")
    assert f"\n{result['map']:.4f}\n" in page("index.md")


# === The python blocks =======================================================
#
# Every ```python block of docs/ runs here, in a fresh namespace whose
# __name__ is not "__main__", with the repository root as working directory.
# A block that needs a package outside the standard library and irmetrics is
# preceded by an HTML comment naming the packages, `<!-- needs: pandas -->`;
# it runs when they are all importable, and is only compiled otherwise. A
# ```text block right after a ```python block is what it prints; a block that
# prints must have one. Blocks whose examples need data or a cluster only
# define functions, which running them checks as far as it can.

PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```[ \t]*$", re.M | re.S)
OUTPUT_BLOCK = re.compile(r"\n+```text\n(.*?)^```[ \t]*$", re.M | re.S)
NEEDS = re.compile(r"^<!--\s*needs:\s*([\w.]+(?:\s*,\s*[\w.]+)*)\s*-->$")
# Packages that the `test` and `docs` extras install, hence present on CI: a
# block that needs one of them must run there.
ON_CI_FROM_EXTRAS = {"pandas": "pandas", "numpy": "numpy", "scipy": "scipy",
                     "pytrec_eval": "pytrec-eval-terrier", "polars": "polars",
                     "matplotlib": "matplotlib", "ir_measures": "ir-measures",
                     "sklearn": "scikit-learn"}


class PythonBlock(NamedTuple):
    name: str               # page:line of the opening fence
    code: str
    needs: Tuple[str, ...]
    output: Optional[str]   # the ```text block that follows, if any


def python_blocks():
    blocks = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for m in PYTHON_BLOCK.finditer(text):
            lineno = text.count("\n", 0, m.start())   # 0-based line of the fence
            needs = []
            for above in reversed(lines[:lineno]):    # the comments right above it
                if not (above.startswith("<!--") and above.rstrip().endswith("-->")):
                    break
                n = NEEDS.match(above.strip())
                if n:
                    needs += [s.strip() for s in n.group(1).split(",")]
            out = OUTPUT_BLOCK.match(text, m.end())
            blocks.append(PythonBlock(
                f"{path.relative_to(DOCS).as_posix()}:{lineno + 1}", m.group(1), tuple(needs),
                out.group(1) if out else None,
            ))
    return blocks


def importable(name):
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def top_level_imports(code):
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def run_block(block):
    """Run a block as the page shows it; return what it printed and its namespace."""
    namespace = {"__name__": "irmetrics_docs_example"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.code, block.name, "exec"), namespace)
    return out.getvalue(), namespace


def test_python_blocks_are_found():
    blocks = python_blocks()
    assert len(blocks) >= 10
    names = {b.name.split(":")[0] for b in blocks}
    assert {"getting-started.md", "guides/pandas.md", "guides/large-runs.md"} <= names
    # No python code hides from the test under another fence.
    for path in sorted(DOCS.rglob("*.md")):
        for lang in re.findall(r"^[ \t]*(?:```|~~~)[ \t]*\{?\.?([\w+-]*)", path.read_text(encoding="utf-8"), re.M):
            assert not lang.lower().startswith("py") or lang in ("python", "pycon"), (path.name, lang)
        assert not re.search(r"^[ \t]+```python", path.read_text(encoding="utf-8"), re.M), path.name


# A block that starts a Dask cluster or Spark starts processes (a JVM): slow.
@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.name, marks=[pytest.mark.slow] if {"distributed", "pyspark"} & set(b.needs) else [])
    for b in python_blocks()])
def test_python_block_runs(block, monkeypatch):
    assert not block.code.lstrip().startswith(">>>"), f"{block.name}: a >>> example belongs in a ```pycon block"
    code = compile(block.code, block.name, "exec")   # every block compiles, run or not
    assert code is not None
    imported = top_level_imports(block.code)
    for name in block.needs:
        assert name in imported, f"{block.name}: needs {name} but does not import it"
    stdlib = getattr(sys, "stdlib_module_names", None)   # Python 3.10+
    if stdlib is not None:
        undeclared = sorted(imported - set(stdlib) - {"irmetrics"} - set(block.needs))
        assert undeclared == [], f"{block.name}: add <!-- needs: {', '.join(undeclared)} --> above it"
    missing = [name for name in block.needs if not importable(name)]
    if ON_CI:
        # what the extras install must be there, so these blocks do run on CI
        assert [n for n in missing if n in ON_CI_FROM_EXTRAS] == [], block.name
    if missing:
        # Compiled only. What it needs must really be absent: a block is never
        # left unrun because of a package that is installed.
        for name in missing:
            assert importlib.util.find_spec(name) is None, f"{block.name}: {name} is installed but fails to import"
        return
    monkeypatch.chdir(ROOT)
    printed, _ = run_block(block)
    if block.output is None:
        assert printed == "", f"{block.name} prints, but no ```text block after it shows what"
    else:
        assert printed == block.output, block.name


def test_extras_installed_on_ci_are_those_of_pyproject():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for dist in ON_CI_FROM_EXTRAS.values():
        assert re.search(rf'^\s*"{re.escape(dist)}[\s<>=!~;\[",]', text, re.M), dist


@pytest.mark.slow
def test_vendoring_guide_blocks_run_against_a_vendored_copy(tmp_path, monkeypatch):
    # The two blocks of docs/guides/vendoring.md import `yourpkg`, the reader's
    # package: build one, with irmetrics copied into it as the guide says.
    blocks = [b for b in python_blocks() if "yourpkg" in b.needs]
    assert [b.name.split(":")[0] for b in blocks] == ["guides/vendoring.md"] * 2
    vendor = tmp_path / "yourpkg" / "_vendor"
    shutil.copytree(ROOT / "irmetrics", vendor / "irmetrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "LICENSE", vendor / "irmetrics" / "LICENSE")
    (tmp_path / "yourpkg" / "__init__.py").write_text("", encoding="utf-8")
    (vendor / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(DOCS / "examples" / "qrels.txt", tmp_path / "qrels.txt")
    shutil.copy(DOCS / "examples" / "bm25.run", tmp_path / "run.txt")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        printed, namespace = run_block(blocks[0])
        assert printed == ""
        assert type(namespace["result"]).__module__ == "yourpkg._vendor.irmetrics.evaluation"
        assert set(namespace["result"].aggregate) == {"map", "nDCG@10"}
        printed, namespace = run_block(blocks[1])
        tests = [f for name, f in namespace.items() if name.startswith("test_") and callable(f)]
        assert len(tests) == 4
        for test in tests:
            test()
    finally:
        for name in [n for n in sys.modules if n == "yourpkg" or n.startswith("yourpkg.")]:
            del sys.modules[name]
    proc = subprocess.run(
        [sys.executable, "-m", "yourpkg._vendor.irmetrics", "qrels.txt", "run.txt", "-m", "map"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["map", "all", "0.5541"]


# === The math hook ===========================================================


def test_math_hook_leaves_code_alone():
    math_hook = load_hook("math")
    source = (
        "Inline $x^2$ and `$y$` code.\n"
        "```console\n$ irmetrics -m map q r\n```\n"
        "~~~\n$$ not math $$\n~~~\n"
        "    ```pycon\n    >>> 1 + 1  # $z$\n    2\n    ```\n"
        "Costs $5 and $6, \\$7.\n"
        "$$\n\\frac{a}{b}\n$$\n"
    )
    text, formulas = math_hook.extract(source)
    assert formulas == [("x^2", False), ("\\frac{a}{b}", True)]
    assert text == (
        "Inline irmetricsmath0x and `$y$` code.\n"
        "```console\n$ irmetrics -m map q r\n```\n"
        "~~~\n$$ not math $$\n~~~\n"
        "    ```pycon\n    >>> 1 + 1  # $z$\n    2\n    ```\n"
        "Costs $5 and $6, $7.\n"
        "irmetricsmath1x\n"
    )


def test_math_hook_restores_mathml():
    math_hook = load_hook("math")
    formulas = [("x", False), ("y", True)]
    html = "<p>a irmetricsmath0x b</p>\n<p>irmetricsmath1x</p>"
    out = math_hook.restore(html, ["<math>x</math>", '<math display="block">y</math>'], formulas)
    assert out == '<p>a <math>x</math> b</p>\n<div class="math-display"><math display="block">y</math></div>'


def test_math_hook_converts_every_formula_of_the_pages():
    require("latex2mathml")
    math_hook = load_hook("math")
    count = 0
    for path in sorted(DOCS.rglob("*.md")):
        for latex, display in math_hook.extract(path.read_text(encoding="utf-8"))[1]:
            assert math_hook.to_mathml(latex, display).startswith("<math"), (path.name, latex)
            count += 1
    assert count > 50


# === The build ===============================================================


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require("mkdocs")
    require("mkdocstrings")
    require("latex2mathml")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.slow
def test_docs_build_strict(site):
    for name in ("index", "getting-started", "metrics", "evaluate", "api"):
        path = site / name / "index.html" if name != "index" else site / "index.html"
        assert path.is_file(), path


@pytest.mark.slow
def test_built_site_renders_formulas_as_mathml(site):
    for name in ("metrics", "correlation", "compare", "evaluate"):
        html = (site / name / "index.html").read_text(encoding="utf-8")
        assert "<math" in html, name
        assert "irmetricsmath" not in html and "$$" not in html, name


@pytest.mark.slow
def test_built_site_loads_nothing_from_another_host(site):
    external = re.compile(
        r"<(?:script|img|iframe)\b[^>]*\bsrc=[\"']?(?:https?:)?//"
        r"|<link\b[^>]*\bhref=[\"']?(?:https?:)?//[^>]*>",
        re.I,
    )
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        for m in external.finditer(html):
            # A <link> to another host is only a problem when it loads something.
            if m.group(0).startswith("<link") and not re.search(
                r"rel=[\"']?(?:stylesheet|preload|modulepreload|icon)", m.group(0)
            ):
                continue
            pytest.fail(f"{path.relative_to(site)} loads {m.group(0)!r}")


def test_pages_and_config_name_no_external_script():
    sources = [p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md")]
    sources.append((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    for text in sources:
        assert not re.search(r"<script\b[^>]*\bsrc=[\"']?(?:https?:)?//", text, re.I)
        assert not re.search(r"extra_javascript:[^\n]*\n(?:\s+- *(?:https?:)?//)", text)


# === The shell examples ======================================================
#
# Every command of a ```sh or ```console block of README.md and docs/ runs
# here, from the repository root, with `irmetrics` as `python -m irmetrics`
# of this checkout. In a ```console block a command is a line starting with
# "$ ", and the lines after it (standard error and output together) are what
# it prints; "..." stands for any lines. A block of ```sh shows no output: its
# commands must succeed. A command that shows an "irmetrics: error:" line
# must exit 2, any other 0. Commands that cannot run here are listed in
# SHELL_EXEMPT with the reason; each must still be in the docs.

SHELL_BLOCK = re.compile(r"^```(sh|console)\n(.*?)^```[ \t]*$", re.M | re.S)
SHELL_EXEMPT = {
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test,docs]' && "
    ".venv/bin/irmetrics -q -m official docs/examples/qrels.txt docs/examples/bm25.run":
        "creates a virtual environment and installs into it (.ci/run does it on CI)",
    ".venv/bin/python -m pytest": "runs this test suite",
    "pip install irmetrics-eval": "installs from the package index",
    ".venv/bin/pip install -e '.[bench]' && .venv/bin/python benchmarks/run.py > benchmarks.md":
        "installs the peers and runs the benchmarks for ten minutes",
    "irmetrics -m map -m ndcg_cut.10 qrels.dev.txt big.run > big.eval":
        "illustrative: needs an MS MARCO-sized run",
    "zcat big.run.gz | irmetrics --quiet -m map qrels.dev.txt -":
        "illustrative: needs an MS MARCO-sized run",
}


class ShellCommand(NamedTuple):
    name: str                      # page:line of the command
    command: str
    output: Optional[Tuple[str, ...]]  # None: a ```sh line, whose output is not shown


def shell_commands():
    commands = []
    for path in [ROOT / "README.md"] + sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT).as_posix()
        for m in SHELL_BLOCK.finditer(text):
            first = text.count("\n", 0, m.start(2)) + 1
            lines = m.group(2).splitlines()
            if m.group(1) == "sh":
                commands += [ShellCommand(f"{where}:{first + i}", line, None)
                             for i, line in enumerate(lines) if line.strip()]
                continue
            assert lines and lines[0].startswith("$ "), f"{where}:{first}: a console block starts with '$ '"
            for i, line in enumerate(lines):
                if line.startswith("$ "):
                    output = []
                    for after in lines[i + 1:]:
                        if after.startswith("$ "):
                            break
                        output.append(after)
                    commands.append(ShellCommand(f"{where}:{first + i}", line[2:], tuple(output)))
    return commands


def test_shell_commands_are_found_and_exemptions_are_current():
    commands = shell_commands()
    assert len(commands) >= 20
    found = {c.command for c in commands}
    assert sorted(set(SHELL_EXEMPT) - found) == []   # no stale exemption
    assert all(reason for reason in SHELL_EXEMPT.values())
    # No irmetrics command hides from the test under another fence (a
    # synopsis with placeholders in capitals, QRELS RUN, is not a command).
    for path in [ROOT / "README.md"] + sorted(DOCS.rglob("*.md")):
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", path.read_text(encoding="utf-8"), re.M | re.S):
            if m.group(1) in ("sh", "console"):
                continue
            for line in m.group(2).splitlines():
                if re.match(r"(\$ )?(\S*/)?irmetrics(?: compare)? ", line):
                    assert "QRELS" in line, (path.name, line)


def _matches(shown, got):
    """Lines *got* as *shown*, where a "..." line stands for any lines."""
    if not shown:
        return not got
    if shown[0] == "...":
        return any(_matches(shown[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and shown[0] == got[0] and _matches(shown[1:], got[1:])


def _recorded_from_trec_eval(command):
    """docs/trec_eval.md shows what the trec_eval C binary printed, beside
    irmetrics' line for the same files; the tests do not build the binary
    (its output there was recorded from tag trec_eval-9.0.8), so those lines
    are only checked to name files that exist."""
    return command.startswith("trec_eval ") or command == "echo $?"


def test_trec_eval_commands_in_the_docs_name_shipped_files():
    recorded = [c for c in shell_commands() if c.command.startswith("trec_eval ")]
    assert recorded
    for c in recorded:
        qrels, run = c.command.split()[-2:]
        assert (ROOT / qrels).is_file() and (ROOT / run).is_file(), c.name


@pytest.mark.parametrize("cmd", [c for c in shell_commands() if c.command not in SHELL_EXEMPT
                                 and not _recorded_from_trec_eval(c.command)],
                         ids=lambda c: c.name)
@pytest.mark.slow
def test_shell_command_runs_as_shown(cmd, tmp_path):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("needs bash")
    shim = tmp_path / "irmetrics"   # `irmetrics` on the PATH: this checkout's
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m irmetrics "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run([bash, "-o", "pipefail", "-c", cmd.command], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    shown = cmd.output or ()
    expected = 2 if any(re.match(r"irmetrics(?: compare| explain| ties)?: error: ", line) for line in shown) else 0
    assert proc.returncode == expected, f"{cmd.name}: {proc.stdout}"
    if cmd.output is not None:
        assert _matches(list(shown), proc.stdout.splitlines()), f"{cmd.name}:\n{proc.stdout}"


# === The packaging metadata ==================================================


def test_license_is_an_spdx_expression():
    # PEP 639: `license = "MIT"` (setuptools >= 77). The old table form and a
    # License classifier make every build print a SetuptoolsDeprecationWarning.
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = "MIT"$', text, re.M)
    assert re.search(r'^license-files = \["LICENSE"\]$', text, re.M)
    assert "License ::" not in text
    m = re.search(r'^requires = \["setuptools>=(\d+)"\]$', text, re.M)
    assert m and int(m.group(1)) >= 77


def test_the_architecture_page_names_every_module():
    # docs/architecture.md draws the road; a module it does not name is a
    # module a newcomer cannot place.
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    modules = sorted(p.name for p in (ROOT / "irmetrics").glob("*.py") if p.name != "__init__.py")
    assert [m for m in modules if f"`{m}`" not in page and m not in page] == []


# === The distribution (issue 42) =============================================
#
# The package index refuses a new name equal to an existing one once case,
# "-", "_" and "." are ignored; "ir-metrics" (an unrelated project) exists, so
# the distribution cannot be "irmetrics". The import name stays irmetrics.

TAKEN_LOOKALIKES = {"ir-metrics"}   # on the package index, not ours


def project_field(name):
    """A string field of pyproject.toml's [project] table (no tomllib on 3.9, 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = re.search(r"^\[project\]\n(.*?)(?=^\[)", text, re.M | re.S).group(1)
    m = re.search(rf'^{name} = "([^"]*)"', table, re.M)
    assert m, f"no {name} in [project]"
    return m.group(1)


def project_classifiers():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^classifiers = \[\n(.*?)^\]", text, re.M | re.S).group(1)
    return re.findall(r'"([^"]+)"', block)


def squashed(name):
    return re.sub(r"[-_.]", "", name).lower()


def test_distribution_name_can_be_published():
    dist = project_field("name")
    assert squashed(dist) not in {squashed(n) for n in TAKEN_LOOKALIKES}, dist
    assert re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", dist), dist   # PEP 508


PIP_INSTALL = re.compile(r"pip install((?:[ \t]+[^\s`\"&|;>)]+)+)")


def pip_install_requirements():
    """(where, requirement) for every `pip install` of the README, the docs
    (pages and notebook), and irmetrics' own messages and docstrings."""
    paths = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *sorted(DOCS.rglob("*.ipynb")),
             *sorted((ROOT / "irmetrics").glob("*.py"))]
    found = []
    for path in paths:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in PIP_INSTALL.finditer(line):
                for arg in m.group(1).split():
                    arg = arg.strip("'\\")
                    if arg.startswith("-"):
                        continue
                    found.append((f"{path.relative_to(ROOT)}:{lineno}", arg))
    return found


def test_every_pip_install_names_the_distribution():
    # `pip install irmetrics[plot]` would install nothing, or a stranger's
    # package once someone takes the name: every install line names the
    # distribution of pyproject.toml (a local checkout, ".", is fine).
    dist = project_field("name")
    found = pip_install_requirements()
    assert any(req.startswith(dist + "[") for _, req in found)   # the extras are shown
    wrong = [(where, req) for where, req in found
             if not req.startswith(".") and re.split(r"[\[<>=!~ ]", req)[0] != dist]
    assert wrong == []


def test_classifiers_say_python_versions_status_and_audience():
    classifiers = project_classifiers()
    assert project_field("requires-python") == ">=3.9"
    versions = [c.rpartition(":: ")[2] for c in classifiers
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions == ["3.9", "3.10", "3.11", "3.12", "3.13"]   # what .ci/run tests
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    assert "Intended Audience :: Science/Research" in classifiers


def test_readme_links_work_on_the_package_index_too():
    # The package index shows README.md without the repository around it: a
    # relative link there leads nowhere. Links are absolute, or absent.
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)[^)]*\)", text) + re.findall(r"\b(?:src|href)=[\"']([^\"']+)", text)
    assert [t for t in targets if not re.match(r"(?:https?://|mailto:|#)", t)] == []


def test_the_sdist_ships_what_the_tests_read():
    # The sdist carries the tests (setuptools adds tests/test_*.py by itself),
    # so it must carry what they read: every top-level file or folder that a
    # test opens through ROOT is included or grafted by MANIFEST.in. (.ci/run
    # builds the sdist and runs its tests.)
    read = set()
    for path in (ROOT / "tests").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        read |= set(re.findall(r"\bROOT / \"([^\"/]+)", text))
        read |= set(re.findall(r"\.join\(ROOT, \"([^\"/]+)", text))
    read |= {"tests"}
    assert {"docs", "README.md"} <= read
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    shipped = set()
    for line in manifest.splitlines():
        words = line.split("#")[0].split()
        if words and words[0] in ("include", "graft"):
            shipped |= set(words[1:])
        assert not (words and words[0] in ("prune", "exclude") and set(words[1:]) & read), line
    # setuptools ships the package, pyproject.toml and MANIFEST.in by itself
    assert sorted(read - shipped - {"irmetrics", "pyproject.toml", "MANIFEST.in"}) == []
