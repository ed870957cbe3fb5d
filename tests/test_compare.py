"""`gputco compare` with a debt: the lender's rows, read from the printed table and checked
against numpy-financial's level payment on the table's own rows (rent, opex, capex), and against
identities that hold whatever the implementation (level service and a constant CFADS: lowest =
mean DSCR = LLCR; breaches: every repayment year below a covenant above the cover, none below)."""

from __future__ import annotations

import math

import numpy_financial as npf
import pytest

from gputco.addin.cli import main

HOURS = 8760


def _table(capsys, args: list[str]) -> dict[str, list[str]]:
    """{row label: [unit, value per system]} of the printed comparison."""
    assert main(["compare", *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    out = {}
    for line in lines[2:]:
        parts = line.split("  ")
        cells = [p.strip() for p in parts if p.strip()]
        if len(cells) >= 3:
            out[cells[0]] = cells[1:]
    return out


def _num(text: str) -> float:
    return math.nan if text == "-" else float(text.replace(",", ""))


@pytest.mark.parametrize(("rent", "fraction", "rate", "years"), [(2.5, 0.6, 0.09, 4), (3.1, 0.4, 0.07, 3)])
def test_the_lender_rows_equal_a_level_payment_on_the_tables_own_rows(capsys, rent, fraction, rate, years):
    args = ["--rent", str(rent), "--debt-fraction", str(fraction), "--debt-rate", str(rate)]
    t = _table(capsys, [*args, "--debt-years", str(years)])
    for i in (1, 2):  # H100_HGX, GB200_NVL72
        capex = _num(t["All-in capex per GPU"][i])
        opex = _num(t["Opex (power+facility+other)"][i])
        debt = _num(t["Debt per GPU (drawn)"][i])
        assert debt == pytest.approx(fraction * capex, rel=1e-3)  # the table rounds to whole USD
        cfads = (rent - opex) * HOURS  # no tax, full availability and use: revenue + opex
        payment = -npf.pmt(rate, years, fraction * capex)
        dscr = _num(t["Lowest DSCR"][i])
        assert dscr == pytest.approx(cfads / payment, rel=1e-3)  # opex is printed to 4 places
        assert _num(t["Mean DSCR"][i]) == pytest.approx(dscr, rel=1e-4)
        assert _num(t["LLCR (loan-life cover)"][i]) == pytest.approx(dscr, rel=1e-4)
        assert _num(t["PLCR (project-life cover)"][i]) > dscr  # the life runs past the loan
        assert _num(t["Periods with DSCR below the covenant"][i]) == 0
        assert 0 < _num(t["Highest loan to value"][i]) < 1
        assert _num(t["Equity IRR"][i]) > _num(t["IRR"][i])  # leverage on a project above the debt rate


def test_a_covenant_above_the_cover_is_breached_in_every_repayment_year(capsys):
    t = _table(capsys, ["--rent", "2.5", "--debt-fraction", "0.6", "--debt-years", "4"])
    dscr = _num(t["Lowest DSCR"][1])
    t = _table(
        capsys,
        ["--rent", "2.5", "--debt-fraction", "0.6", "--debt-years", "4", "--covenant-dscr", str(dscr + 0.5)],
    )
    assert _num(t["DSCR covenant"][1]) == pytest.approx(dscr + 0.5, rel=1e-4)
    assert _num(t["Periods with DSCR below the covenant"][1]) == 4


def test_one_value_per_system_and_no_debt_shows_no_cover(capsys):
    t = _table(capsys, ["--rent", "2.5", "--debt-fraction", "0,0.5"])
    assert t["Debt per GPU (drawn)"][1] == "0"
    assert t["Lowest DSCR"][1] == "-" and not math.isnan(_num(t["Lowest DSCR"][2]))


def test_without_debt_or_without_a_rent_no_lender_rows(capsys):
    assert "Lowest DSCR" not in _table(capsys, ["--rent", "2.5"])
    assert main(["compare", "--debt-fraction", "0.6"]) == 2
    err = capsys.readouterr().err
    assert "--rent" in err and "lender rows" in err, err


def test_a_bad_debt_value_names_the_option_and_its_range(capsys):
    assert main(["compare", "--rent", "2.5", "--debt-fraction", "1.2"]) == 2
    err = capsys.readouterr().err
    assert "--debt-fraction" in err and "1.2" in err and "[0, 1)" in err, err
