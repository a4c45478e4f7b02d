"""Importing the test oracles (pytrec-eval-terrier, scipy, numpy).

Without an oracle its tests skip, except on CI (``CI=true``), where a missing
oracle is a failure: a green build must mean the comparison ran.
"""

import importlib
import os
from types import ModuleType

import pytest

ON_CI = os.environ.get("CI", "").strip().lower() == "true"


def require(modname: str) -> ModuleType:
    """Import an oracle; skip without it, except on CI where its absence fails."""
    if ON_CI:
        try:
            return importlib.import_module(modname)
        except ImportError as exc:
            pytest.fail(f"oracle {modname!r} is required when CI=true: {exc}")
    module: ModuleType = pytest.importorskip(modname)
    return module


def scipy_wilcoxon(stats: ModuleType, x, y=None, *, zero_method="wilcox", correction=False,
                   method="auto"):  # type: ignore[no-untyped-def]
    """``stats.wilcoxon`` with the meaning of scipy >= 1.15 on older scipy too.

    scipy 1.15 (gh-21567) renamed method "approx" to "asymptotic", made "auto"
    enumerate all 2**n sign flips (a permutation test) for at most 13 pairs
    with ties or zeros, and keeps method="exact" with zeros where 1.13 fell
    back to the normal approximation and computed ties differently.
    irmetrics follows 1.15; scipy 1.13 is the last for Python 3.9, so there
    the call is translated to the method 1.15 would use. "exact" is
    translated only without ties, and with zeros only for zero_method
    "wilcox" (the zeros dropped first): callers exclude the rest there.
    """
    if scipy_wilcoxon_is_new():
        return stats.wilcoxon(x, y, zero_method=zero_method, correction=correction,
                              method=method)
    d = [float(v) for v in x] if y is None else [float(a) - float(b) for a, b in zip(x, y)]
    zeros = any(v == 0 for v in d)
    ties = len({abs(v) for v in d if v != 0}) < sum(1 for v in d if v != 0)
    if method == "auto":
        if len(d) > 50:
            method = "asymptotic"
        elif not (zeros or ties):
            method = "exact"
        elif len(d) <= 13:
            method = stats.PermutationMethod()
        else:
            method = "asymptotic"
    if method == "asymptotic":
        method = "approx"
    if method == "exact" and zeros:
        assert zero_method == "wilcox", "scipy < 1.15 has no exact test with zeros kept"
        d = [v for v in d if v != 0]
    return stats.wilcoxon(d, zero_method=zero_method, correction=correction, method=method)


def scipy_version() -> tuple:  # type: ignore[type-arg]
    """scipy's (major, minor)."""
    return tuple(int(p) for p in require("scipy").__version__.split(".")[:2])


def scipy_wilcoxon_is_new() -> bool:
    """True for scipy >= 1.15, whose wilcoxon irmetrics follows (see scipy_wilcoxon)."""
    return scipy_version() >= (1, 15)
