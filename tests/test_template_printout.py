"""`gputco template` prints its tables aligned: every text in its own column, at least two spaces
from the next, whatever its length (a workbook text such as "needs rent_usd_per_gpu_hour" ran into
the next system's value)."""

from __future__ import annotations

import re

from gputco.addin.cli import main
from gputco.addin.cmd_template import summary_table
from gputco.addin.report import aligned
from gputco.udfs import presets


def _columns(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def test_texts_longer_than_a_column_stay_apart(tmp_path, capsys):
    out = tmp_path / "t.xlsx"
    args = ["template", "-o", str(out), "--systems", "GB200_NVL72,H100_HGX", "--set", "inp_periods=month"]
    assert main([*args, "--set", "inp_rent_usd_per_gpu_hour_2="]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("the workbook's values with your inputs:")
    table = lines[start + 1 : start + 11]
    assert _columns(table[0]) == ["GB200_NVL72", "H100_HGX"]
    rows = {_columns(line)[0]: _columns(line)[1:] for line in table[1:]}
    assert rows["cluster_npv_usd"][1] == "needs rent_usd_per_gpu_hour"
    assert all(len(cells) == 2 for cells in rows.values()), table
    ends = {len(line.rstrip()) for line in table}  # right-aligned: one right edge
    assert len(ends) == 1, table


def test_the_default_summary_of_every_system_is_a_table():
    keys = sorted(presets.catalog("system"))
    lines = summary_table(keys, "emerging_neocloud").splitlines()[1 : 2 + len(keys)]
    assert [len(_columns(line)) for line in lines] == [8] * (1 + len(keys))
    assert len({len(line) for line in lines}) == 1


def test_aligned_widths_follow_the_widest_text():
    lines = aligned([["", "a"], ["key", "a much longer text"], ["k", "1"]])
    assert lines == [" " * 22 + "a", "key  a much longer text", "k" + " " * 21 + "1"]
