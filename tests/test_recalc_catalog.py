"""docs/functions.md, the list of the functions `gputco recalc` evaluates is generated from the engine's table."""

from __future__ import annotations

from pathlib import Path

from gputco.workbook.recalc import supported_functions
from gputco.workbook.recalc.functions.catalog import BEGIN, END, replace_in, section

PAGE = Path(__file__).resolve().parents[1] / "docs" / "functions.md"


def test_readme_lists_exactly_the_engines_functions():
    # on failure: run `python -m gputco.workbook.recalc.functions.catalog --write docs/functions.md` and commit it
    text = PAGE.read_text(encoding="utf-8")
    assert replace_in(text) == text
    listed = text.split(BEGIN, 1)[1].split(END, 1)[0]
    for name in supported_functions():
        assert f" {name}," in listed or f" {name}\\n" in listed or listed.count(name), name


def test_every_function_is_in_one_category():
    body = section()
    for name in supported_functions():
        lines = [
            ln
            for ln in body.splitlines()
            if ln.startswith("- ") and name in [x.strip() for x in ln.split(":", 1)[1].split(",")]
        ]
        assert len(lines) == 1, (name, lines)
