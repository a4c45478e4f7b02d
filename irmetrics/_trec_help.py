"""trec_eval's own help text (its ``-h``), for ``irmetrics --trec-eval VERSION -h``.

The texts are trec_eval's, byte for byte, kept in ``trec_eval_help.json``
(made from the two builds' ``-h`` output: each version's general help, its
format explanations (``-T``, ``-R``), every measure's explanation in
trec_eval's order and its groups of ``-m``); 9.0.8's entry holds only what
differs from 10.0's.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Sequence

from .errors import InvalidArgumentError

_SEPARATOR = "\n-----------------------\n"


def _texts(version: str) -> Dict[str, Any]:
    """The help texts of trec_eval *version*, read from the package's JSON file."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trec_eval_help.json")
    with open(path, encoding="ascii") as f:
        table = json.load(f)
    texts = dict(table[version])
    base = texts.pop("base", None)
    if base is not None:  # an older version: its differences from the newer
        newer = table[base]
        explanations = dict(newer["measures"])
        texts["measures"] = [[m, explanations[m]] for m in texts.pop("measure_names")]
        for key in ("rel_formats", "groups"):
            texts[key] = {**newer[key], **texts[key]}
    return texts


def _marked(texts: Dict[str, Any], version: str, measures: Sequence[str]) -> List[str]:
    """The measures ``-m`` marks, as trec_eval marks them (``P.5`` marks P, a
    group marks its measures); a name trec_eval *version* lacks is an error."""
    known = [name for name, _ in texts["measures"]]
    marked = set()
    for arg in measures:
        name = arg.partition(".")[0]
        names = texts["groups"].get(name, [name])
        for n in names:
            if n not in known:
                newer = version != "10.0" and n in dict(_texts("10.0")["measures"])
                hint = " (trec_eval 10.0 has it: --trec-eval 10.0)" if newer else ""
                raise InvalidArgumentError(
                    f"trec_eval {version} has no measure {arg!r}, and -h with "
                    f"--trec-eval prints trec_eval's help{hint}")
            marked.add(n)
    return [n for n in known if n in marked]


def trec_eval_help(version: str, measures: Sequence[str], rel_format: str,
                   results_format: str) -> str:
    """What ``trec_eval -h`` of *version* prints with these ``-m``, ``-R``
    and ``-T`` (``trec_eval.c``'s ``trec_eval_help``): the general help, the
    explanations of the two formats (a format it lacks: none), then each
    marked measure's explanation."""
    texts = _texts(version)
    parts = [texts["help"] + _SEPARATOR]
    for table, name in (("results_formats", results_format), ("rel_formats", rel_format)):
        if name in texts[table]:
            parts.append(texts[table][name] + _SEPARATOR)
    parts.append("Individual measure documentation for requested measures\n")
    explanations = dict(texts["measures"])
    marked = _marked(texts, version, measures)
    parts += [f"{name}\n{explanations[name]}" for name in marked]
    if not marked:
        parts.append("-- No measures indicated.\n   Request measure documentation using "
                     "<-m measure> on command line\n")
    return "".join(parts)
