"""``python -m irmetrics``: the command line."""

from __future__ import annotations

from .cli import console

if __name__ == "__main__":
    console()
