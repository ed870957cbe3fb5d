"""workbook/xlsx's face: the modules (and, where narrower, the names) of ``gputco.workbook.xlsx``
that the rest of gputco (the two workbooks, batch, soffice, the front doors in addin/) may
import, each with its job group and why. Everything else in workbook/xlsx/ is private to it.
tests/test_layout.py enforces this (docs/architecture.md, "The faces of udfs and workbook/xlsx"),
as udfs/_face.py does for udfs.
"""

from __future__ import annotations

#: job groups: laying out a sheet, writing big blocks fast, safe files, typed inputs
LAYOUT, FAST, FILES, INPUTS = "layout", "fast writing", "files", "inputs"

#: module -> (job group, names other packages may use or None for the whole module, why)
FACE: dict[str, tuple[str, frozenset[str] | None, str]] = {
    "book": (LAYOUT, frozenset({"BookBuilder"}), "the workbook under construction, its names and rows"),
    "styles": (LAYOUT, None, "the house style: fonts, fills, number formats, headings (every sheet)"),
    "cells": (
        LAYOUT,
        frozenset({"as_text", "blank_empty_texts"}),
        "inputs written as values, never formulas",
    ),
    "validation": (
        LAYOUT,
        frozenset({"only_value", "preset_list", "validate_range"}),
        "Excel's data validation of inputs",
    ),
    "presets_sheet": (LAYOUT, frozenset({"build", "lookup"}), "the Presets sheet both workbooks look up"),
    "xlwings_sheet": (
        LAYOUT,
        frozenset({"XLWINGS_SHEET", "build_xlwings_conf"}),
        "the xlwings.conf sheet the add-in reads",
    ),
    "calc": (LAYOUT, frozenset({"show_cached_values"}), "open with the computed values shown"),
    "rowfill": (FAST, frozenset({"BlockColumn", "fill_rows"}), "a block's rows written once, fast"),
    "sheetrows": (FAST, frozenset({"column_letter"}), "column letters as the row writer spells them"),
    "stream": (FAST, frozenset({"XlsxStream"}), "batch's streamed .xlsx output"),
    "chartcache": (FAST, frozenset({"add_caches"}), "charts that show their values before a recalculation"),
    "files": (
        FILES,
        frozenset({"FileExistsRefusal", "WriteError", "atomic_output", "check_input"}),
        "the one safe-output path of every command, and input files checked before reading",
    ),
    "inputcheck": (
        INPUTS,
        frozenset({"failed_checks", "mark", "out_of_range", "range_of"}),
        "inputs typed into a workbook checked as its data validation checks them",
    ),
    "setinputs": (
        INPUTS,
        frozenset({"parse_assignment", "set_inputs"}),
        "`--set NAME=VALUE` into Inputs cells",
    ),
}
