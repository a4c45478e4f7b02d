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
from typing import Any, Callable, Container, Dict, List, Optional, Sequence, Tuple

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


def _correction(c: Any) -> Tuple[str, str]:
    """How the p-values are corrected over the family: in words, and as the
    title of the column of corrected p-values."""
    if c.test in ("tukey-hsd", "randomized-tukey"):
        return f"; the test controls the family-wise error rate over {c.family}", "p (family)"
    if c.correction == "none":
        return f"without correction for multiple comparisons ({c.family})", "p"
    title = _CORRECTION_TITLES[c.correction]
    return f"after {title} correction over {c.family}", f"p ({title})"


def _how(c: Any) -> str:
    """The test, alpha and the family, in words."""
    how = _correction(c)[0]
    return f"{TEST_TITLES[c.test]}, p <= {c.alpha:g}{'' if how[0] == ';' else ' '}{how}"


def _footer(c: Any) -> List[str]:
    versus = "the baseline" if len(c.baselines) == 1 else "the run compared with"
    return [
        f"{_MARK} significantly different from {versus} ({_how(c)}).",
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
    versus = [] if len(c.baselines) == 1 else ["versus"]
    return ["measure", "run", *versus, "mean", "diff", f"{_fmt_percent(c.confidence)} CI",
            "p", _correction(c)[1], "W/T/L"]


def _paper_rows(c: Any, sup: str, escape: Callable[[str], str]) -> List[List[str]]:
    """The table for papers: per run, its letter and name (escaped by
    *escape*), then per measure its mean followed by the letters of the runs
    it is significantly better than, written as a superscript by the format
    string *sup*."""
    marks = {m: c.marks(m) for m in c.measures}
    means = {(r["run"], r["measure"]): r["mean"] for r in c._rows if r["versus"] is None}
    return [[f"({letter}) {escape(run)}"]
            + [f"{means[run, m]:.4f}" + (sup.format(marks[m][run]) if marks[m][run] else "")
               for m in c.measures]
            for run, letter in c.letters.items()]


def aligned(rows: Sequence[Sequence[str]], left: Container[int]) -> List[str]:
    """*rows* as lines, the columns two spaces apart and each as wide as its
    widest cell: flush left the columns in *left*, flush right the others."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in rows]


def text(c: Any) -> str:
    """A plain-text table, one line per measure and run, with a footer."""
    header = _columns(c)
    body = [[_one_line(c) for c in _cells(c, r)] for r in c._rows]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 1, 2} if len(c.baselines) != 1 else {0, 1}
    out = [_one_line(_header(c)), ""] + aligned([header, ["-" * w for w in widths]] + body, left)
    out += [""] + [_one_line(note) for note in _footer(c)]
    return "\n".join(out) + "\n"


def markdown(c: Any) -> str:
    """A Markdown (GitHub) table with the same columns as :meth:`to_text`;
    with other comparisons than one baseline's, the table for papers."""
    if len(c.baselines) != 1:
        header = ["run"] + [_md_escape(m) for m in c.measures]
        left = 1
        body = _paper_rows(c, "<sup>{}</sup>", _md_escape)
        footer = _paper_footer(c)
    else:
        header = _columns(c)
        left = 2
        # The measure and the run come from outside; the other cells are
        # numbers written here, with at most a "*" to escape.
        body = [[_md_escape(measure), _md_escape(run)] + [n.replace("*", "\\*") for n in numbers]
                for measure, run, *numbers in (_cells(c, r) for r in c._rows)]
        footer = _footer(c)
    align = ["---"] * left + ["---:"] * (len(header) - left)
    table = ["| " + " | ".join(cells) + " |" for cells in [header] + body]
    table.insert(1, "|" + "|".join(align) + "|")  # under the header
    out = [_md_escape(_header(c), line=True), ""] + table + [""]
    out += [_md_escape(line, line=True) + "  " for line in footer]
    return "\n".join(out).rstrip() + "\n"


def latex(c: Any) -> str:
    """A LaTeX ``tabular`` (booktabs) for a paper: runs by measures, means
    marked; with other comparisons than one baseline's, the table for papers."""
    cols = "l" + "r" * len(c.measures)
    out = [f"\\begin{{tabular}}{{{cols}}}", "\\toprule"]
    out.append(" & ".join(["Run"] + [_tex_escape(m) for m in c.measures]) + " \\\\")
    out.append("\\midrule")
    # "{}" first in a row: a row that began with "[" or "*" would be read as
    # the argument of the "\\" or "\midrule" before it.
    if len(c.baselines) != 1:
        for cells in _paper_rows(c, "$^{{{}}}$", _tex_escape):
            out.append("{}" + " & ".join(cells) + " \\\\")
        mark, notes = "", _paper_footer(c)
    else:
        for run in c.runs:
            name = "{}" + _tex_escape(run) + (" (baseline)" if run == c.baseline else "")
            cells = [name]
            for m in c.measures:
                r = c.row(run, m)
                cells.append(f"{r['mean']:.4f}" + ("$^{*}$" if r["significant"] else ""))
            out.append(" & ".join(cells) + " \\\\")
        mark, notes = "$^{*}$ ", [_footer(c)[0][len(_MARK) + 1 :]]
    out.append("\\bottomrule")
    for line in notes:
        # The comparison in math mode: $p \le 0.05$.
        before, found, after = line.partition(f"p <= {c.alpha:g}")
        note = _tex_escape(before) + (f"$p \\le {c.alpha:g}$" + _tex_escape(after) if found else "")
        out.append(f"\\multicolumn{{{len(cols)}}}{{l}}{{\\footnotesize {mark}{note}}} \\\\")
    out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


def html(c: Any) -> str:
    """An HTML table (Jupyter shows it), every name and id escaped."""
    import html as _html  # only for this format

    paper = len(c.baselines) != 1
    if paper:
        columns = ["run", *c.measures]
        rows = _paper_rows(c, "<sup>{}</sup>", _html.escape)
    else:
        columns = _columns(c)
        rows = [_cells(c, r) for r in c._rows]
    footer = "<br>".join(_html.escape(line) for line in (_paper_footer(c) if paper else _footer(c)))
    return (
        f"<p>{_html.escape(_header(c))}</p>"
        + html_table(columns, rows, markup=paper)
        + f"<p><small>{footer}</small></p>"
    )


def json(c: Any) -> str:
    """:meth:`~irmetrics.compare.Comparison.to_dict` as indented strict JSON."""
    return strict_json(c.to_dict(), indent=2) + "\n"


def csv(c: Any) -> str:
    """The rows as CSV, a header line first: the columns :data:`ROW_KEYS`."""
    return csv_lines([list(ROW_KEYS)] + [[r[k] for k in ROW_KEYS] for r in c._rows])


#: The command line's ``--format`` of ``irmetrics compare``: the function that writes each.
FORMATS = {"text": text, "markdown": markdown, "latex": latex, "html": html, "json": json,
           "csv": csv}


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


