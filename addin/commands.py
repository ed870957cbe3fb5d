"""The ``gputco`` sub-commands and their one-line help, in the order ``gputco --help`` lists them.

Imports nothing: ``gputco --help`` and ``gputco --version`` build their parser from this table
alone (no numpy, pandas or pyarrow; tests/test_cli_imports.py), and each sub-command's module
takes its help line from here when the command runs.
"""

from __future__ import annotations

HELP = {
    "compare": "print the TCO comparison of systems (default H100_HGX vs GB200_NVL72)",
    "presets": "list every preset value with unit, source and date",
    "batch": "run scenarios from a CSV, XLSX or Parquet file (one row each) into results",
    "docs": "print or write the UDF reference (docs/udfs.md) from the registry",
    "addin": "add-ins: the xlwings VBA module, the LibreOffice Calc add-in, xlwings Lite files",
    "recalc": "recalculate an .xlsx headlessly and fill every formula's value (or --check them)",
    "scenarios": "write a scenario workbook from a SPEC (grid, sensitivity, Monte Carlo) as .xlsx",
    "template": "write the finance workbook (H100 HGX vs GB200 NVL72 TCO) as .xlsx",
    "open": "open a workbook in LibreOffice Calc with the TCO_* functions",
    "render": "render a workbook's sheets to PNG pictures (LibreOffice headless)",
}


def command(sub, name: str, description: str):
    """The parser of sub-command ``name`` of the sub-parsers ``sub``, with its help line from
    :data:`HELP` (one place for it) and its ``--help`` page's ``description``."""
    return sub.add_parser(name, help=HELP[name], description=description)


def options(args, *names: str) -> dict:
    """The parsed options ``names`` of ``args`` (an argparse namespace) as keyword arguments of the
    same names, for a command that hands them on unchanged."""
    return {name: getattr(args, name) for name in names}


def add_workbook_output(p, default: str) -> None:
    """The ``-o/--output FILE`` option of a command that writes one workbook (default ``default``)."""
    p.add_argument(
        "-o", "--output", default=default, metavar="FILE", help="the .xlsx to write (default: %(default)s)"
    )


def version() -> str:
    """gputco's version, read from its one source (gputco/udfs/_version.py) without importing
    gputco.udfs (which imports numpy)."""
    import importlib.util
    import runpy
    from pathlib import Path

    spec = importlib.util.find_spec("gputco.udfs")  # imports the parent (gputco), not udfs
    where = Path(next(iter(spec.submodule_search_locations))) / "_version.py"
    return runpy.run_path(str(where))["__version__"]
