"""Other libraries' APIs over irmetrics, for code written against them.

:mod:`irmetrics.compat.pytrec_eval`: pytrec_eval's (pytrec-eval-terrier's)
module, with the same names and the same results; ``install()`` makes
``import pytrec_eval`` give it.  The adapters only translate names and
values: every number comes from :func:`irmetrics.evaluate`'s road.
"""
