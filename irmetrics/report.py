"""How a :class:`~irmetrics.compare.Comparison` is written out: plain text,
Markdown, LaTeX and HTML.

Each format escapes what it prints (run and measure names and query ids come
from files and may hold anything): text keeps a name on one line, Markdown
escapes everything a Markdown flavour reads as markup (links, images, HTML,
table separators, emphasis, math...), LaTeX escapes its special characters,
starts each row with ``{}`` and writes comparisons in math mode, HTML
escapes everything.
JSON (:meth:`~irmetrics.compare.Comparison.to_dict`, strict) and CSV (the
rows, columns :data:`~irmetrics.compare.ROW_KEYS`) write the data as they
are.  The comparison's statistics are computed in :mod:`irmetrics.compare`.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

# each run of control characters as one space: a name or id from a file must
# not end a table row (or, in LaTeX, a paragraph), nor reach a terminal
from ._text import one_line as _one_line
from ._text import strict_json
from .formats import csv_lines, html_table
from .frames import _ROW_KINDS

#: The keys of every row of a comparison, in order (also the CSV columns);
#: :data:`irmetrics.compare.ROW_KEYS`.
ROW_KEYS = tuple(_ROW_KINDS)

__all__ = ["text", "markdown", "latex", "html", "json", "csv", "FORMATS", "TEST_TITLES"]

Row = Dict[str, Any]

#: How each test is named in a report.
TEST_TITLES = {
    "paired-t": "two-sided paired t test",
    "wilcoxon": "two-sided Wilcoxon signed-rank test",
    "permutation": "two-sided paired randomization test",
    "bootstrap": "two-sided paired bootstrap test",
    "tukey-hsd": "two-way Tukey HSD test (topics as blocks)",
    "randomized-tukey": "randomised Tukey HSD test (Carterette 2012)",
}
_CORRECTION_TITLES = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no",
                      "holm-sidak": "Holm-Sidak", "hommel": "Hommel",
                      "fdr_bh": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli"}
_MARK = "*"


# === The parts every format shares ============================================


def _header(c: Any) -> str:
    if c.pairs == "all":
        what = f"All pairs of {len(c.runs)} runs"
    elif len(c.baselines) > 1:
        what = "Baselines " + ", ".join(map(repr, c.baselines))
    else:
        what = f"Baseline {c.baseline!r}"
    return f"{what}; {TEST_TITLES[c.test]}; {len(c.queries)} paired queries."


def _how(c: Any) -> str:
    """The test, alpha and the family, in words."""
    if c.test in ("tukey-hsd", "randomized-tukey"):
        how = f"; the test controls the family-wise error rate over {c.family}"
    elif c.correction == "none":
        how = f"without correction for multiple comparisons ({c.family})"
    else:
        how = f"after {_CORRECTION_TITLES[c.correction]} correction over {c.family}"
    return f"{TEST_TITLES[c.test]}, p <= {c.alpha:g}{'' if how[0] == ';' else ' '}{how}"


def _footer(c: Any) -> List[str]:
    one = len(c.baselines) == 1
    marked = "different from the baseline" if one else "different from the run compared with"
    versus = "the baseline" if one else "the run compared with"
    return [
        f"{_MARK} significantly {marked} ({_how(c)}).",
        f"CI: {_fmt_percent(c.confidence)} confidence interval of the mean difference "
        f"({c.ci_method}); W/T/L: queries better/equal/worse than {versus}.",
    ] + list(c.notes)


def _paper_footer(c: Any) -> List[str]:
    """Under a table of letter marks: what a mark says, and the notes."""
    return [f"A letter after a mean: significantly better than the run of that letter "
            f"({_how(c)})."] + list(c.notes)


def _cells(c: Any, r: Row) -> List[str]:
    versus = [] if len(c.baselines) == 1 else [r["versus"] or ""]
    if r["versus"] is None:
        return [r["measure"], r["run"], *versus, f"{r['mean']:.4f}",
                "(baseline)" if r["baseline"] else "", "", "", "", ""]
    mark = _MARK if r["significant"] else ""
    ci = "" if r["ci_low"] is None else f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
    return [
        r["measure"],
        r["run"],
        *versus,
        f"{r['mean']:.4f}{mark}",
        f"{r['difference']:+.4f}",
        ci,
        _fmt_p(r["p_value"]),
        _fmt_p(r["p_adjusted"]),
        f"{r['wins']}/{r['ties']}/{r['losses']}",
    ]


def _columns(c: Any) -> List[str]:
    if c.test in ("tukey-hsd", "randomized-tukey"):
        adjusted = "p (family)"
    elif c.correction == "none":
        adjusted = "p"
    else:
        adjusted = f"p ({_CORRECTION_TITLES[c.correction]})"
    versus = [] if len(c.baselines) == 1 else ["versus"]
    return ["measure", "run", *versus, "mean", "diff", f"{_fmt_percent(c.confidence)} CI",
            "p", adjusted, "W/T/L"]


def _paper_rows(c: Any) -> List[List[Any]]:
    """The table for papers: per run, its letter and name, then per measure
    its mean and the letters of the runs it is significantly better than."""
    marks = {m: c.marks(m) for m in c.measures}
    means = {(r["run"], r["measure"]): r["mean"] for r in c._rows if r["versus"] is None}
    return [[letter, run] + [(f"{means[run, m]:.4f}", marks[m][run]) for m in c.measures]
            for run, letter in c.letters.items()]


def text(c: Any) -> str:
    """A plain-text table, one line per measure and run, with a footer."""
    header = _columns(c)
    body = [[_one_line(c) for c in _cells(c, r)] for r in c._rows]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 1, 2} if len(c.baselines) != 1 else {0, 1}

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i in left else c.rjust(w)
                 for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    out = [_one_line(_header(c)), "", line(header), line(["-" * w for w in widths])]
    out += [line(cells) for cells in body]
    out += [""] + [_one_line(note) for note in _footer(c)]
    return "\n".join(out) + "\n"


def markdown(c: Any) -> str:
    """A Markdown (GitHub) table with the same columns as :meth:`to_text`;
    with other comparisons than one baseline's, the table for papers."""
    if len(c.baselines) != 1:
        out = [_md_escape(_header(c), line=True), ""]
        out.append("| run | " + " | ".join(_md_escape(m) for m in c.measures) + " |")
        out.append("|---|" + "---:|" * len(c.measures))
        for letter, run, *cells in _paper_rows(c):
            marked = [mean + (f"<sup>{mark}</sup>" if mark else "") for mean, mark in cells]
            out.append(f"| ({letter}) {_md_escape(run)} | " + " | ".join(marked) + " |")
        out.append("")
        out += [_md_escape(line, line=True) + "  " for line in _paper_footer(c)]
        return "\n".join(out).rstrip() + "\n"
    header = _columns(c)
    out = [_md_escape(_header(c), line=True), ""]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|")
    for r in c._rows:
        # The measure and the run come from outside; the other cells are
        # numbers written here, with at most a "*" to escape.
        measure, run, *numbers = _cells(c, r)
        cells = [_md_escape(measure), _md_escape(run)] + [n.replace("*", "\\*") for n in numbers]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out += [_md_escape(line, line=True) + "  " for line in _footer(c)]
    return "\n".join(out).rstrip() + "\n"


def latex(c: Any) -> str:
    """A LaTeX ``tabular`` (booktabs) for a paper: runs by measures, means marked."""
    cols = "l" + "r" * len(c.measures)
    out = [f"\\begin{{tabular}}{{{cols}}}", "\\toprule"]
    out.append(" & ".join(["Run"] + [_tex_escape(m) for m in c.measures]) + " \\\\")
    out.append("\\midrule")
    if len(c.baselines) != 1:
        return _latex_paper(c, out)
    for run in c.runs:
        # "{}" first: a row that began with "[" or "*" would be read as the
        # argument of the "\\" or "\midrule" before it.
        name = "{}" + _tex_escape(run) + (" (baseline)" if run == c.baseline else "")
        cells = [name]
        for m in c.measures:
            r = c.row(run, m)
            cells.append(f"{r['mean']:.4f}" + ("$^{*}$" if r["significant"] else ""))
        out.append(" & ".join(cells) + " \\\\")
    out.append("\\bottomrule")
    # The comparison in math mode: $p \le 0.05$.
    before, _, after = _footer(c)[0][len(_MARK) + 1 :].partition(f"p <= {c.alpha:g}")
    note = _tex_escape(before) + f"$p \\le {c.alpha:g}$" + _tex_escape(after)
    out.append(
        f"\\multicolumn{{{len(c.measures) + 1}}}{{l}}{{\\footnotesize $^{{*}}$ {note}}}"
        " \\\\"
    )
    out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


def _latex_paper(c: Any, out: List[str]) -> str:
    """The LaTeX table for papers, after its header lines *out*."""
    for letter, run, *cells in _paper_rows(c):
        marked = [mean + (f"$^{{{mark}}}$" if mark else "") for mean, mark in cells]
        out.append(" & ".join([f"{{}}({letter}) {_tex_escape(run)}"] + marked) + " \\\\")
    out.append("\\bottomrule")
    for line in _paper_footer(c):
        before, _, after = line.partition(f"p <= {c.alpha:g}")
        note = _tex_escape(before) + (f"$p \\le {c.alpha:g}$" + _tex_escape(after) if _ else "")
        out.append(f"\\multicolumn{{{len(c.measures) + 1}}}{{l}}{{\\footnotesize {note}}} \\\\")
    out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


def html(c: Any) -> str:
    """An HTML table (Jupyter shows it), every name and id escaped."""
    import html as _html  # only for notebooks

    if len(c.baselines) != 1:
        footer = "<br>".join(_html.escape(line) for line in _paper_footer(c))
        rows = [[f"({letter}) {_html.escape(run)}"]
                + [mean + (f"<sup>{mark}</sup>" if mark else "") for mean, mark in cells]
                for letter, run, *cells in _paper_rows(c)]
        return (f"<p>{_html.escape(_header(c))}</p>"
                + html_table(["run", *c.measures], rows, markup=True)
                + f"<p><small>{footer}</small></p>")
    footer = "<br>".join(_html.escape(line) for line in _footer(c))
    return (
        f"<p>{_html.escape(_header(c))}</p>"
        + html_table(_columns(c), [_cells(c, r) for r in c._rows])
        + f"<p><small>{footer}</small></p>"
    )


def json(c: Any) -> str:
    """:meth:`~irmetrics.compare.Comparison.to_dict` as indented strict JSON."""
    return strict_json(c.to_dict(), indent=2) + "\n"


def csv(c: Any) -> str:
    """The rows as CSV, a header line first: the columns :data:`ROW_KEYS`."""
    return csv_lines([list(ROW_KEYS)] + [[r[k] for k in ROW_KEYS] for r in c._rows])


#: The command line's ``--format`` of ``irmetrics compare``: the function that writes each.
FORMATS = {"text": text, "markdown": markdown, "latex": latex, "json": json, "csv": csv}


# === Escaping ==================================================================


def _fmt_p(p: Optional[float]) -> str:
    if p is None:
        return "n/a"
    return f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def _fmt_percent(level: float) -> str:
    return f"{100 * level:.10g}%"


# Markdown: every character that some Markdown reads as markup inside a line
# or a table cell.  A backslash escape where CommonMark and Python-Markdown
# (mkdocs) both honour it; otherwise a character reference, which every
# Markdown reads as text: HTML and entities (& < >), math ($), strikethrough
# and subscript (~), superscript (^), highlight (==), and a ':' before
# anything but a space (an autolink scheme such as http://, an emoji code).
_MD_BACKSLASHED = frozenset("\\`*_{}[]!#|")
_MD_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;", "~": "&#126;",
                  "^": "&#94;"}
# Also: "www." (an autolink in GitHub Markdown and pymdownx.magiclink), and at
# the start of a line what would begin a list ("-", "+", "1.", "1)").
# (Patterns, compiled by re's cache on first use, not at import.)
_MD_WWW = r"(?i)(www)\."
_MD_LINE_START = r"^(\s*)([-+]|[0-9]+[.)])"


def _md_escape(text: str, *, line: bool = False) -> str:
    """*text* escaped for a table cell, or (*line*) for a line of its own."""
    text = _one_line(text)
    out = []
    for i, c in enumerate(text):
        if c in _MD_BACKSLASHED:
            out.append("\\" + c)
        elif c in _MD_REFERENCES:
            out.append(_MD_REFERENCES[c])
        elif c == ":" and text[i + 1 : i + 2] not in ("", " "):
            out.append("&#58;")
        elif c == "=" and "=" in (text[i - 1 : i], text[i + 1 : i + 2]):
            out.append("&#61;")
        else:
            out.append(c)
    escaped = re.sub(_MD_WWW, r"\1\\.", "".join(out))
    if not line:
        return escaped
    return re.sub(_MD_LINE_START, lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1],
                  escaped)


# LaTeX (OT1, the default font encoding, has no glyphs for < > |: they print
# as other characters, so they are written as text commands).
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
        "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def _tex_escape(text: str) -> str:
    return "".join(_TEX.get(c, c) for c in _one_line(text))


