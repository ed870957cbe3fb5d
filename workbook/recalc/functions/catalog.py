"""docs/functions.md: what `gputco recalc` evaluates, generated from the engine's function table.

``python -m gputco.workbook.recalc.functions.catalog`` prints the section; ``--write docs/functions.md`` replaces the
part of that page between the ``recalc-functions`` markers (tests/test_recalc_catalog.py checks that
the checked-in page matches).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gputco.workbook.recalc.functions import BUILTINS, NEVER

BEGIN = "<!-- recalc-functions:begin (generated: python -m gputco.workbook.recalc.functions.catalog --write docs/functions.md) -->"
END = "<!-- recalc-functions:end -->"

CLOCK = frozenset({"NOW", "TODAY"})

#: Excel's categories, by the module that implements them
CATEGORIES = {
    "math": "Math",
    "statistical": "Statistical",
    "database": "Conditional aggregates",
    "logical": "Logical",
    "information": "Information",
    "text": "Text",
    "lookup": "Lookup and reference",
    "datetime": "Date and time",
    "financial": "Financial",
    "engineering": "Engineering",
    "arrays": "Arrays and dynamic arrays",
}


def section() -> str:
    """The generated Markdown: functions by category, then what is never run."""
    groups: dict[str, list[str]] = {}
    for name, spec in BUILTINS.items():
        module = spec.impl.__module__.rsplit(".", 1)[-1]
        groups.setdefault(CATEGORIES.get(module, "Other"), []).append(name)
    lines = [BEGIN, "", f"Excel built-in functions evaluated by the engine ({len(BUILTINS)}):", ""]
    for cat in sorted(groups):
        lines.append(f"- {cat}: " + ", ".join(sorted(groups[cat])))
    clock = sorted(NEVER & CLOCK)
    lines += [
        "",
        f"Only with `--now TIME` (they change on every recalculation): {', '.join(clock)}.",
        "",
        "Never run (they reach outside the workbook, or are random): "
        + ", ".join(sorted(NEVER - CLOCK))
        + ".",
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
