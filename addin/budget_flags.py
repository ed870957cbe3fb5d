"""The budget flags every door that reads a file takes: ``--budget NAME=N`` and ``--timeout``.

Each budget is also an environment variable (``GPUTCO_<NAME>``, read by
:func:`gputco.workbook.recalc.budgets`); ``--timeout`` is ``GPUTCO_TIMEOUT``. The flag wins over
the variable, the variable over the door's default. docs/safety.md lists every budget.
"""

from __future__ import annotations

import argparse
import math
import os

from gputco.udfs.errors import InputRangeError


def add_budget_argument(p: argparse.ArgumentParser) -> None:
    """``--budget NAME=N`` (repeatable): raise or lower one safety budget (docs/safety.md)."""
    p.add_argument(
        "--budget",
        action="append",
        default=[],
        metavar="NAME=N",
        help="set a safety budget, e.g. max_cells=40000000 (also GPUTCO_MAX_CELLS=...; "
        "the budgets and their defaults: docs/safety.md)",
    )


def add_timeout_argument(p: argparse.ArgumentParser, default: float | None, what: str) -> None:
    """``--timeout SECONDS`` for everything the command does (``what``), default ``default``
    (None: no limit unless GPUTCO_TIMEOUT sets one)."""
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"give up after SECONDS for {what} (default: GPUTCO_TIMEOUT, else "
        + ("no limit" if default is None else f"{default:g}")
        + "; a safety net for files from elsewhere)",
    )
    p.set_defaults(default_timeout=default)


def timeout_of(args: argparse.Namespace) -> float | None:
    """The command's time budget: ``--timeout``, else ``GPUTCO_TIMEOUT``, else its default.

    >>> timeout_of(argparse.Namespace(timeout=None, default_timeout=300.0))
    300.0
    >>> timeout_of(argparse.Namespace(timeout=-1.0, default_timeout=300.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputRangeError: --timeout must be in (0, inf) seconds, got -1
    """
    from gputco.workbook.timebudget import TIMEOUT_ENV

    if args.timeout is not None:
        seconds, name = args.timeout, "--timeout"
    elif os.environ.get(TIMEOUT_ENV, "").strip():
        text, name = os.environ[TIMEOUT_ENV].strip(), TIMEOUT_ENV
        try:
            seconds = float(text)
        except ValueError:
            raise InputRangeError(name, text, "(0, inf) seconds") from None
    else:
        return args.default_timeout
    if not 0 < seconds < math.inf:
        raise InputRangeError(name, seconds, "(0, inf) seconds")
    return seconds
