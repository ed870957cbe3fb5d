"""The function table: each Excel function's category, the Excel version that introduced it and its
Microsoft support page, behind docs/functions.md and the "unsupported function" message.

The facts are in ``excel_functions.tsv`` (read by :func:`gputco.workbook.recalc.functions.excel_functions`;
where they come from: the section "Where the table comes from" of docs/functions.md). ``python -m gputco.workbook.recalc.functions.catalog``
prints the generated section; ``--write docs/functions.md`` replaces the part of that page between
the ``recalc-functions`` markers (tests/recalc/functions/test_function_catalog.py checks that the checked-in page matches).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gputco.workbook.recalc.functions import BUILTINS, NEVER, Entry, excel_functions
from gputco.workbook.recalc.functions.math import CLOCK, SEEDED

BEGIN = "<!-- recalc-functions:begin (generated: python -m gputco.workbook.recalc.functions.catalog --write docs/functions.md) -->"
END = "<!-- recalc-functions:end -->"


def section() -> str:
    """The generated Markdown: the engine's functions by Microsoft's category, then what is never run."""
    table = excel_functions()
    groups: dict[str, list[Entry]] = {}
    for name in BUILTINS:
        entry = table.get(name)
        if entry is None:
            raise KeyError(f"{name} is in the engine's table but not in excel_functions.tsv")
        groups.setdefault(entry.category, []).append(entry)
    lines = [
        BEGIN,
        "",
        f"Excel built-in functions evaluated by the engine ({len(BUILTINS)} of the {len(table)} in the table):",
        "",
    ]
    for cat in sorted(groups):
        lines += [
            f"### {cat} ({len(groups[cat])})",
            "",
            "| function | introduced | Microsoft's page |",
            "|---|---|---|",
        ]
        for e in sorted(groups[cat], key=lambda e: e.name):
            lines.append(f"| {e.name} | {e.excel} | [{e.name.lower()}]({e.url}) |")
        lines.append("")
    clock, seeded = sorted(NEVER & CLOCK), sorted(NEVER & SEEDED)
    lines += [
        f"Only with `--now TIME` (they change on every recalculation): {', '.join(clock)}.",
        "",
        f"Only with `--seed N` (random: numpy's `default_rng(N)`): {', '.join(seeded)}.",
        "",
        "Never run (they reach outside the workbook): " + ", ".join(sorted(NEVER - CLOCK - SEEDED)) + ".",
        "",
        END,
    ]
    return "\n".join(lines)


def replace_in(text: str) -> str:
    """``text`` with the section between the markers regenerated."""
    if BEGIN not in text or END not in text:
        raise ValueError("the page has no recalc-functions markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + section() + tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gputco.workbook.recalc.functions.catalog", description=__doc__
    )
    ap.add_argument("--write", metavar="PAGE", help="update the marked section of this file")
    args = ap.parse_args(argv)
    if args.write:
        path = Path(args.write)
        path.write_text(replace_in(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(section() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
