"""The project's period lines written once (udfs/periodlines.py): each line's Python computation
gives the compiled flows batch runs (udfs/project.py and its kernel) and today's pinned tables;
every template is in the chain's dialect and reads only what is computed before it; docs/project.md's
table is the generator's."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import project_pin_record
from hypothesis import given, settings
from hypothesis import strategies as st

from gputco.addin import chain_docs
from gputco.udfs import chain, periodlines, project

PINNED = json.loads((Path(__file__).parent / "data" / "project_pinned.json").read_text())
#: the TCO_PROJECT_CASHFLOWS column -> the line it is (debt service there is signed as cash)
AS_LINE = {
    "revenue": "revenue",
    "opex": "opex",
    "depreciation": "depreciation",
    "tax": "tax",
    "residual": "residual",
    "net": "net",
    "capex": "capex",
    "debt_drawn": "drawn",
    "interest_tax_shield": "shield",
    "equity": "equity",
    "cumulative_equity": "cum_equity",
}


def _close(got, want, scale: float, rel: float = 1e-12) -> bool:
    return bool(np.all(np.abs(np.asarray(got) - np.asarray(want)) <= rel * np.maximum(np.abs(want), scale)))


def _compare_table(case: dict, rows: list) -> None:
    """The lines of ``case`` by their Python computations equal ``rows`` (TCO_PROJECT_CASHFLOWS)."""
    got = project.period_lines(case)
    cols = rows[0]
    table = np.array(rows[1:], dtype=float)
    capex = case["capex_per_gpu"]
    assert got["net"].shape[0] == table.shape[0]
    for column, name in AS_LINE.items():
        assert _close(got[name][:, 0], table[:, cols.index(column)], capex), (column, case)
    assert _close(-got["service"][:, 0], table[:, cols.index("debt_service")], capex), case


def test_the_lines_give_the_pinned_tables():
    """Today's 24 pinned TCO_PROJECT_CASHFLOWS tables (recorded before the lines were written
    once), every line within 1e-12 of the capex."""
    for t in PINNED["tables"]:
        _compare_table(t["case"], t["rows"])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_the_lines_give_the_compiled_flows_and_results(seed, month):
    """A random project's lines by their Python computations: the compiled table of
    TCO_PROJECT_CASHFLOWS line by line, and the results batch computes (NPVs the discounted lines
    summed, the lowest DSCR the least of the DSCR line, the peak funding the least cumulative
    equity) to 1e-9."""
    case = project_pin_record.draw(np.random.default_rng(seed), month)
    _compare_table(case, project.tco_project_cashflows(**case))
    lines = project.period_lines(case)
    out = project.results(case)
    capex = case["capex_per_gpu"]
    assert _close(lines["net_pv"].sum(), out["project_npv_usd_per_gpu"][0], capex, 1e-9)
    assert _close(lines["equity_pv"].sum(), out["equity_npv_usd_per_gpu"][0], capex, 1e-9)
    assert _close(min(0.0, lines["cum_equity"].min()), out["peak_funding_usd_per_gpu"][0], capex, 1e-9)
    dscr = lines["dscr"][:, 0]
    if np.isnan(dscr).all():
        assert math.isnan(out["min_dscr"][0])
    else:
        assert _close(np.nanmin(dscr), out["min_dscr"][0], 1.0, 1e-9)
    points = lines["payback_point"][:, 0]
    if not np.isnan(points).all() and not math.isnan(out["project_payback_years"][0]):
        assert _close(np.nanmin(points) / (12 if month else 1), out["project_payback_years"][0], 1.0, 1e-9)


def test_every_template_is_in_the_chains_dialect_and_reads_what_comes_before():
    """``[name]``: an input of the chain or a project term; ``<line>``: a line of its own table
        computed before it (or itself / another table through @all and the running ranges; any line of
    its table through @prev: the period before is complete)."""
    names = {i.key for i in chain.INPUTS} | set(project.TERMS) | set(project.CHOICES)
    seen: set[str] = set()
    for x in periodlines.SCALARS:
        for m in chain.REF.finditer(x.formula):
            assert m.group(1) in names | seen, (x.key, m.group(1))
        assert not chain.YEAR_REF.search(x.formula), x.key
        seen.add(x.key)
    names |= seen
    for table, number in ((periodlines.TAX_LINES, "tax_year"), (periodlines.PERIOD_LINES, "period")):
        before: set[str] = set()
        for x in table:
            for m in chain.REF.finditer(x.formula):
                assert m.group(1) in names, (x.key, m.group(1))
            for m in chain.YEAR_REF.finditer(x.formula):
                name, at = m.group(1), m.group(2) or ""
                if name == number:
                    continue
                if at == "all":
                    assert periodlines.is_line(name), (x.key, name)
                elif at == "prev":  # the period before is complete: any line of the table
                    assert name in {y.key for y in table}, (x.key, name)
                elif at in ("0:p", "1:t"):
                    assert name in before | {x.key}, (x.key, name)
                else:
                    assert at == "" and name in before, (x.key, name)
            assert not re.search(r"\{[a-z_]+\}", x.formula), x.key  # none of the old dialects
            before.add(x.key)


def test_the_project_page_shows_the_lines_the_code_has():
    # on failure: run `python -m gputco.addin.chain_docs` and commit docs/project.md
    page = (Path(__file__).resolve().parents[1] / "docs" / "project.md").read_text(encoding="utf-8")
    assert chain_docs.project_page(page) == page
    for x in periodlines.PERIOD_LINES:
        assert f"| `{x.key}` |" in page


def test_every_line_has_a_heading_of_its_own():
    """The period table's headings are how a user finds a column (render --columns): no two alike."""
    labels = [x.label for x in (*periodlines.SCALARS, *periodlines.PERIOD_LINES)]
    assert sorted(k for k in set(labels) if labels.count(k) > 1) == []
