"""The ``gputco_workbook`` pytest fixture: a workbook recalculated headlessly, read by cell or name.

Installed with gputco as a pytest plugin (the ``pytest11`` entry point ``gputco``), so any test
suite in an environment with gputco can use it without a conftest::

    def test_our_model(gputco_workbook):
        book = gputco_workbook("model.xlsx")
        assert book["out_tco_usd_per_gpu_hour_1"] == pytest.approx(1.4199, rel=1e-4)
        assert book["Model!D12"] > 0

The fixture recalculates the file once with gputco's engine (``gputco recalc --check``: nothing
is written) and keeps the values. By default it fails the test when a formula's stored value
differs from the computed one, listing each such cell with its formula and both values (the file
was saved with stale values: an input written by openpyxl, or a formula changed outside Excel);
``check=False`` reads the recalculated values instead. Loading this module imports nothing
heavy: gputco's engine loads when the fixture is first used. See docs/pytest.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


class RecalculatedWorkbook:
    """The values of a workbook after a headless recalculation, by cell or defined name.

    ``book["name"]``: the value of a single-cell defined name (a list of rows for a range);
    ``book["Sheet!A1"]`` or ``book["Sheet", "A1"]``: a cell. Values are float, int, str, bool or
    None (empty); an Excel error is its text, ``"#N/A"``. ``book.report`` is the
    :class:`gputco.workbook.recalc.RecalcReport` (``report.mismatches``: the stale cells).
    """

    def __init__(self, path: Path, report, computed: dict[tuple[str, str], object]) -> None:
        import openpyxl

        self.path, self.report = path, report
        self._computed = computed
        self._wb = openpyxl.load_workbook(path, data_only=True)

    def _cell(self, sheet: str, ref: str) -> object:
        ref = ref.replace("$", "")
        if (sheet, ref) in self._computed:
            value = self._computed[(sheet, ref)]
            return value if isinstance(value, bool | int | float | str) or value is None else str(value)
        return self._wb[sheet][ref].value

    def _range(self, sheet: str, ref: str) -> object:
        if ":" not in ref:
            return self._cell(sheet, ref)
        ws = self._wb[sheet]
        return [[self._cell(sheet, c.coordinate) for c in row] for row in ws[ref.replace("$", "")]]

    def __getitem__(self, key: str | tuple[str, str]) -> object:
        if isinstance(key, tuple):
            return self._range(*key)
        if key in self._wb.defined_names:
            dests = list(self._wb.defined_names[key].destinations)
            if len(dests) != 1:
                raise KeyError(f"{key} refers to {len(dests)} areas; read them by cell")
            return self._range(*dests[0])
        if "!" in key:
            sheet, ref = key.rsplit("!", 1)
            return self._range(sheet.strip("'"), ref)
        raise KeyError(f"{key!r} is neither a defined name of {self.path.name} nor a Sheet!A1 reference")


def recalculated(path: str | Path, check: bool = True) -> RecalculatedWorkbook:
    """Recalculate ``path`` once (nothing is written) and read it; with ``check``, fail the
    current test when a stored value differs from the computed one."""
    from gputco.udfs import UDFS
    from gputco.workbook.recalc import recalc_file

    path = Path(path)
    report = recalc_file(path, check=True, functions=UDFS)
    if check and report.mismatches:
        pytest.fail(
            f"{path.name}: {len(report.mismatches)} formula cells differ from their stored values "
            f"(gputco recalc --check {path.name}):\n{report.mismatch_table(20)}",
            pytrace=False,
        )
    computed = {(m.sheet, m.cell): m.computed for m in report.mismatches}
    return RecalculatedWorkbook(path, report, computed)


@pytest.fixture
def gputco_workbook() -> Callable[..., RecalculatedWorkbook]:
    """``gputco_workbook(path, check=True)``: the workbook recalculated once, read by cell or
    defined name (see :class:`RecalculatedWorkbook`)."""
    return recalculated
