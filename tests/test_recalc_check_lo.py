"""`gputco recalc --check --engine libreoffice` on a freshly written finance workbook: LibreOffice's
values are compared within its precision (``|a - b| <= 1e-9 * max(1, |a|, |b|)``, docs/recalc.md),
so the file passes; a cached value moved by more than that is still reported.

The workbook is the memo case of docs/project.md (by month, a build, debt, MACRS): its cash-flow
balance cells cancel to about zero, where LibreOffice's sums keep another rounding of their
addends (the debt left after the last repayment: stored 8.98e-12, LibreOffice -1.30e-11), which a
relative test reported as a difference (exit 1).
"""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest
from lo import requires_soffice

from gputco.addin.cli import main
from gputco.workbook.finance.build import write_template

pytestmark = requires_soffice

MEMO = {
    "inp_gpus_1": 1152,
    "inp_gpus_2": 2048,
    "inp_mfu_1": 0.5,
    "inp_mfu_2": 0.5,
    "inp_rent_usd_per_gpu_hour_1": 4,
    "inp_rent_usd_per_gpu_hour_2": 2,
    "inp_tax_rate": 0.21,
    "inp_periods": "month",
    "inp_build_months_1": 12,
    "inp_build_months_2": 12,
    "inp_ramp_months_1": 3,
    "inp_ramp_months_2": 3,
    "inp_depreciation_method": "macrs_5",
    "inp_debt_fraction": 0.6,
    "inp_debt_rate": 0.09,
    "inp_debt_years": 4,
}


@pytest.fixture(scope="module")
def memo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("memo") / "memo.xlsx"
    write_template(path, ["GB200_NVL72", "H100_HGX"], "neocloud_giant", inputs=MEMO)
    return path


@pytest.fixture(scope="module")
def residue(memo) -> str:
    """A cell of Cash flow 1 whose value is a sum cancelling to about zero (not exactly 0)."""
    ws = openpyxl.load_workbook(memo, data_only=True)["Cash flow 1"]
    cells = [
        c.coordinate
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, float) and 0 < abs(c.value) < 1e-10
    ]
    assert cells
    return cells[0]


def _part(z: zipfile.ZipFile, sheet: str) -> str:
    wb = z.read("xl/workbook.xml").decode()
    rid = re.search(rf'<sheet [^>]*name="{re.escape(sheet)}"[^>]*r:id="([^"]+)"', wb).group(1)
    rels = z.read("xl/_rels/workbook.xml.rels").decode()
    target = re.search(rf'<Relationship [^>]*Id="{rid}"[^>]*Target="([^"]+)"', rels)
    if target is None:
        target = re.search(rf'<Relationship [^>]*Target="([^"]+)"[^>]*Id="{rid}"', rels)
    return "xl/" + target.group(1).removeprefix("/xl/")


def _cached(path: Path, sheet: str, ref: str) -> float:
    with zipfile.ZipFile(path) as z:
        xml = z.read(_part(z, sheet)).decode()
    return float(re.search(rf'<c r="{ref}"[^>]*>(?:<f>[^<]*</f>|<f[^>]*/>)?<v>([^<]*)</v>', xml).group(1))


def _tamper(src: Path, dst: Path, sheet: str, ref: str, value: float) -> None:
    with zipfile.ZipFile(src) as z:
        part = _part(z, sheet)
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            if info.filename == part:
                data, n = re.subn(
                    rb'(<c r="' + ref.encode() + rb'"[^>]*>(?:<f>[^<]*</f>|<f[^>]*/>)?<v>)[^<]*(</v>)',
                    rb"\g<1>" + repr(value).encode() + rb"\g<2>",
                    data,
                    count=1,
                )
                assert n == 1, ref
            z.writestr(info, data)


def test_a_fresh_workbook_passes_the_libreoffice_check(memo, residue, capsys):
    assert 0 < abs(_cached(memo, "Cash flow 1", residue)) < 1e-10  # a balance that cancels to ~0
    assert main(["recalc", str(memo), "--check", "--engine", "libreoffice"]) == 0
    assert "0 cells differ" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("sheet", "ref", "moved"),
    [
        ("Cash flow 1", None, lambda v: v + 1e-8),  # near zero: beyond 1e-9 absolute
        ("Model", "D12", lambda v: v * (1 + 1e-7)),  # a number: beyond 1e-9 relative
    ],
)
def test_a_moved_value_is_still_reported(memo, residue, tmp_path, capsys, sheet, ref, moved):
    ref = ref or residue
    dst = tmp_path / "moved.xlsx"
    shutil.copy(memo, dst)
    _tamper(memo, dst, sheet, ref, moved(_cached(memo, sheet, ref)))
    assert main(["recalc", str(dst), "--check", "--engine", "libreoffice"]) == 1
    out = capsys.readouterr().out
    assert "1 cells differ" in out and f"{sheet}!{ref}" in out
