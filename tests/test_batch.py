"""`gputco batch`: scenarios in CSV/Parquet/XLSX to results, chunked, atomic, row-numbered errors."""

from __future__ import annotations

import io

import numpy as np
import openpyxl
import pandas as pd
import pyarrow.parquet as pq
import pytest
from batch_case import THREE

from gputco import udfs
from gputco.addin.cli import main
from gputco.udfs import scenario
from gputco.workbook.batch.run import RESULTS, BadRowsError, BatchError, Progress, run_batch
from gputco.workbook.xlsx.files import FileExistsRefusal

CSV = (
    "id,system,buyer,precision,mfu,usd_per_kwh,tokens\n"
    "a,H100_HGX,,bf16,0.54,,300e9\n"
    "b,GB200_NVL72,neocloud_giant,fp8,0.4,0.12,1e12\n"
    "c,h100 hgx,emerging_neocloud,,0.3,0.05,\n"
)


@pytest.fixture
def csv_in(tmp_path):
    path = tmp_path / "scenarios.csv"
    path.write_text(CSV)
    return path


def _expected():
    return scenario.evaluate(THREE)


@pytest.mark.parametrize("ext", ["csv", "parquet", "xlsx"])
def test_results_equal_the_model_in_every_format(csv_in, tmp_path, ext):
    out = tmp_path / f"results.{ext}"
    report = run_batch(csv_in, out)
    assert report.rows == 3
    df = (
        pd.read_csv(out) if ext == "csv" else pd.read_parquet(out) if ext == "parquet" else pd.read_excel(out)
    )
    assert list(df["id"]) == ["a", "b", "c"]
    assert list(df.columns) == CSV.splitlines()[0].split(",") + list(RESULTS)
    expected = _expected()
    for name in scenario.OUTPUTS:
        column = f"use_{name}" if name in scenario.INPUT_NAMES else name
        np.testing.assert_allclose(df[column].to_numpy(float), expected[name], rtol=1e-12)
    # Empty cells used the presets: row a is the hyperscaler H100 at $1.42, and they stay empty.
    assert df["tco_usd_per_gpu_hour"][0] == pytest.approx(udfs.tco_gpu_hour("H100_HGX"))
    assert pd.isna(df["usd_per_kwh"][0]) and pd.isna(df["buyer"][0]) and pd.isna(df["tokens"][2])
    assert df["use_usd_per_kwh"][0] == 0.087 and df["use_buyer"][0] == "hyperscaler"
    assert df["system"][2] == "h100 hgx" and df["use_system"][2] == "H100_HGX"  # as given


def test_chunks_give_the_same_results_as_one_pass(csv_in, tmp_path):
    run_batch(csv_in, tmp_path / "one.parquet")
    run_batch(csv_in, tmp_path / "many.parquet", chunk_rows=1)
    one, many = pq.read_table(tmp_path / "one.parquet"), pq.read_table(tmp_path / "many.parquet")
    assert _same(one, many)


def test_a_results_file_runs_again_as_input(csv_in, tmp_path):
    run_batch(csv_in, tmp_path / "r1.parquet")
    run_batch(tmp_path / "r1.parquet", tmp_path / "r2.parquet")
    assert _same(pq.read_table(tmp_path / "r1.parquet"), pq.read_table(tmp_path / "r2.parquet"))


def _same(a, b) -> bool:
    """Equal tables: the same columns and values, an empty (NaN) result where the other has one
    (the rent-based results without a rent)."""
    return a.schema == b.schema and a.to_pandas().equals(b.to_pandas())


def test_bad_number_names_the_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("system,mfu\nH100_HGX,0.4\nH100_HGX,0.5\nGB200_NVL72,1.7\n")
    with pytest.raises(BatchError, match=r"\nrow 4, column B \(mfu\): mfu must be in \(0, 1\], got 1.7"):
        run_batch(path, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    assert not list(tmp_path.glob(".~*"))  # no temporary file left behind


def test_unknown_column_and_unknown_preset(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("system,mfu,electricity\nH100_HGX,0.4,0.1\n")
    with pytest.raises(udfs.UnknownNameError, match="unknown batch column 'electricity'"):
        run_batch(path, tmp_path / "out.csv")
    path.write_text("system,mfu\nH100_HXG,0.4\n")
    with pytest.raises(
        BatchError,
        match=r"row 2, column A \(system\): unknown system 'H100_HXG'.*Did "
        r"you mean H100_HGX",
    ):
        run_batch(path, tmp_path / "out.csv")


def test_refuses_to_overwrite_and_keeps_the_original(csv_in, tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("precious")
    with pytest.raises(FileExistsRefusal, match="use --force"):
        run_batch(csv_in, out)
    assert out.read_text() == "precious"
    run_batch(csv_in, out, force=True)
    assert out.read_text().startswith('"id"')


def test_a_failure_mid_write_leaves_the_original_intact(tmp_path):
    # The second chunk has a bad row: the first chunk was already written to the temporary file.
    path = tmp_path / "in.csv"
    path.write_text("system,mfu\nH100_HGX,0.4\nH100_HGX,0.5\nH100_HGX,-1\n")
    out = tmp_path / "out.parquet"
    out.write_bytes(b"original bytes")
    with pytest.raises(BatchError, match=r"row 4, column B \(mfu\)"):
        run_batch(path, out, chunk_rows=2, force=True)
    assert out.read_bytes() == b"original bytes"
    assert not list(tmp_path.glob(".~*"))


def test_formula_like_text_is_never_a_formula(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text('label,system,mfu\n"=HYPERLINK(""http://x"",""y"")",H100_HGX,0.4\n@SUM(1),H100_HGX,0.4\n')
    run_batch(path, tmp_path / "out.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx").active
    assert ws["A2"].data_type == "s" and ws["A2"].value == '=HYPERLINK("http://x","y")'
    assert ws["A3"].data_type == "s"
    run_batch(path, tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[1].startswith("\"'=HYPERLINK") and lines[2].startswith("\"'@SUM")


def test_empty_input_is_an_error(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("system,mfu\n")
    with pytest.raises(BatchError, match="no scenarios"):
        run_batch(path, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


def test_progress_reports_on_a_stream():
    stream = io.StringIO()
    progress = Progress(stream=stream, force=True)
    progress.last -= 1.0
    progress(1_500_000)
    progress.done()
    assert "1,500,000 scenarios" in stream.getvalue()


def test_cli_exit_codes(csv_in, tmp_path, capsys):
    out = tmp_path / "r.parquet"
    assert main(["batch", str(csv_in), "-o", str(out)]) == 0
    assert main(["batch", str(csv_in), "-o", str(out)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert main(["batch", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("gputco batch: error: cannot read ")
        and err.rstrip().endswith("missing.csv: no such file")
        and "Traceback" not in err
    )
    assert main(["batch", str(csv_in), "-o", str(tmp_path / "no-such-dir" / "x.csv")]) == 3
    assert "cannot write" in capsys.readouterr().err


# -- every bad cell in one pass ------------------------------------------------------------------

BAD_ROWS = {
    7: ("mfu", "1.5"),
    11: ("system", "GB400_NVL72"),
    20002: ("mfu", ""),
    150002: ("usd_per_kwh", "twelve cents"),
}
EXPECTED_LINES = [
    "row 7, column B (mfu): mfu must be in (0, 1], got 1.5",
    "row 11, column A (system): unknown system 'GB400_NVL72'; valid: B200_HGX, B300_HGX, "
    "GB200_NVL72, GB300_NVL72, H100_HGX, H200_HGX, H800_HGX, MI300X, MI325X, MI355X. "
    "Did you mean GB300_NVL72?",
    "row 20002, column B (mfu): mfu is empty; every scenario needs one in (0, 1]",
    "row 150002, column C (usd_per_kwh): 'twelve cents' is not a number",
]


def _scenarios(rows: int, bad: dict[int, tuple[str, str]]) -> dict[str, list[str]]:
    """``rows`` clean scenarios as text columns, with the cells of ``bad`` (spreadsheet rows)."""
    rng = np.random.default_rng(3)
    cols = {
        "system": list(np.array(["H100_HGX", "GB200_NVL72", "B200_HGX"])[rng.integers(0, 3, rows)]),
        "mfu": [f"{x:.3f}" for x in rng.uniform(0.3, 0.6, rows)],
        "usd_per_kwh": [f"{x:.4f}" for x in rng.uniform(0.05, 0.15, rows)],
    }
    for row, (col, value) in bad.items():
        cols[col][row - 2] = value
    return cols


def _lines(err: BadRowsError) -> list[str]:
    return str(err).splitlines()[1:]


def test_four_bad_rows_of_200000_in_one_run_in_row_order(tmp_path, capsys):
    cols = _scenarios(200_000, BAD_ROWS)
    path = tmp_path / "big.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    out = tmp_path / "out.parquet"
    assert main(["batch", str(path), "-o", str(out), "--chunk-rows", "70000"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"gputco batch: error: {path}: 4 bad cells; nothing was written"
    assert [line.strip() for line in err[1:]] == EXPECTED_LINES
    assert not out.exists() and not list(tmp_path.glob(".~*"))


def test_the_same_bad_rows_through_parquet(tmp_path):
    cols = _scenarios(200_000, BAD_ROWS)
    table = pd.DataFrame(cols)
    table["mfu"] = pd.to_numeric(table["mfu"]).where(table["mfu"] != "")  # empty -> null
    table.to_parquet(tmp_path / "big.parquet")  # usd_per_kwh stays text: one cell is not a number
    with pytest.raises(BadRowsError) as info:
        run_batch(tmp_path / "big.parquet", tmp_path / "out.csv", chunk_rows=65_536)
    assert _lines(info.value) == EXPECTED_LINES


def test_the_same_bad_rows_through_xlsx_across_chunks(tmp_path):
    bad = {
        7: ("mfu", "1.5"),
        11: ("system", "GB400_NVL72"),
        102: ("mfu", ""),
        251: ("usd_per_kwh", "twelve cents"),
    }
    cols = _scenarios(300, bad)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(cols))
    for system, mfu, price in zip(*cols.values(), strict=True):
        ws.append([system, float(mfu) if mfu else None, price if price == "twelve cents" else float(price)])
    wb.save(tmp_path / "in.xlsx")
    with pytest.raises(BadRowsError) as info:
        run_batch(tmp_path / "in.xlsx", tmp_path / "out.xlsx", chunk_rows=50)
    assert _lines(info.value) == [
        line.replace("20002", "102").replace("150002", "251") for line in EXPECTED_LINES
    ]


def test_every_kind_of_bad_cell_and_the_first_20_then_a_count(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(
        "system,buyer,model,precision,convention,mfu,pue\n"
        "H100_HGX,hyperscaler,gpt3_175b,fp4,palm,0.5,1.3\n"  # 2: no FP4 peak
        "H100_HGX,cloud,gpt5,fp3,chinchilla,0.5,\n"  # 3: four names
        "GB200_NVL72,,,fp4,,0.5,0.9\n"  # 4: pue
        + "H100_HGX,,,,,0.5,1.3\n" * 3  # 5-7 clean
        + "H100_HGX,,,,,2,1.3\n" * 25
    )  # 8-32: mfu
    with pytest.raises(BadRowsError) as info:
        run_batch(path, tmp_path / "out.csv", chunk_rows=4)
    lines = _lines(info.value)
    assert str(info.value).splitlines()[0].endswith("31 bad cells; nothing was written")
    assert lines[0] == (
        "row 2, column D (precision): system H100_HGX has no fp4 peak; give peak_tflops or another precision"
    )
    assert [line.split(":")[0] for line in lines[1:6]] == [
        "row 3, column B (buyer)",
        "row 3, column C (model)",
        "row 3, column D (precision)",
        "row 3, column E (convention)",
        "row 4, column G (pue)",
    ]
    assert "unknown convention 'chinchilla'" in lines[4] and "got 0.9" in lines[5]
    assert lines[6] == "row 8, column F (mfu): mfu must be in (0, 1], got 2"
    assert len(lines) == 21 and lines[20] == "... and 11 more bad cells"


def test_an_empty_required_cell_is_empty_not_nan(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("system,mfu\nH100_HGX,\n")
    with pytest.raises(BadRowsError, match=r"row 2, column B \(mfu\): mfu is empty"):
        run_batch(path, tmp_path / "out.csv")


# -- .xlsx input: formulas -----------------------------------------------------------------------


def _book_with(tmp_path, value) -> object:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["system", "buyer", "mfu", "usd_per_kwh"])
    ws.append(["H100_HGX", "hyperscaler", 0.54, value])
    path = tmp_path / "formula.xlsx"
    wb.save(path)  # openpyxl stores formulas without a value, as any script does
    return path


def test_a_formula_cell_is_computed_by_our_engine_never_read_as_empty(tmp_path):
    path = _book_with(tmp_path, "=0.06*2")
    run_batch(path, tmp_path / "out.parquet")
    out = pq.read_table(tmp_path / "out.parquet").to_pandas()
    assert out["usd_per_kwh"][0] == 0.12
    assert round(out["tco_usd_per_gpu_hour"][0], 4) == 1.4795  # the preset $0.087 gives 1.4199
    model = scenario.evaluate({"system": "H100_HGX", "mfu": 0.54, "usd_per_kwh": 0.12})
    assert out["tco_usd_per_gpu_hour"][0] == model["tco_usd_per_gpu_hour"][0]


def test_a_formula_the_engine_cannot_evaluate_is_refused_naming_its_cell(tmp_path):
    for formula, error, message in (
        (
            '=WEBSERVICE("http://example.com/price")',
            BatchError,
            r"formula cells that gputco's engine does not compute: "
            r"WEBSERVICE in Sheet!D2; put the values in those cells$",
        ),
        (
            "=1/0",
            BadRowsError,
            r"row 2, column D \(usd_per_kwh\): '#DIV/0! \(the formula in Sheet!D2\)' is not a number",
        ),
    ):
        path = _book_with(tmp_path, formula)
        with pytest.raises(error, match=message):
            run_batch(path, tmp_path / "out.csv")


# -- CSV dialects and column names ---------------------------------------------------------------


def test_a_european_csv_is_detected_and_the_options_set_it(tmp_path):
    path = tmp_path / "eu.csv"
    path.write_text("System;MFU;USD_per_kWh\nH100_HGX;0,54;0,12\n")
    run_batch(path, tmp_path / "out.parquet")
    out = pq.read_table(tmp_path / "out.parquet").to_pandas()
    assert list(out.columns[:3]) == ["System", "MFU", "USD_per_kWh"]  # names as given
    assert round(out["tco_usd_per_gpu_hour"][0], 4) == 1.4795
    with pytest.raises(
        BadRowsError,
        match=r"'0,54' is not a number \(a decimal comma\? give "
        r"--decimal ,\)",
    ):
        run_batch(path, tmp_path / "o2.csv", decimal=".")


def test_a_refused_csv_says_how_it_was_read(tmp_path):
    path = tmp_path / "eu.csv"
    path.write_text("system;mfu\nH100_HGX;0.54\n")
    with pytest.raises(
        udfs.UnknownNameError,
        match=r"unknown batch column 'system;mfu'.*read as "
        r"CSV with separator ',' and decimal mark '\.' \(given.*1 column: "
        r"'system;mfu'",
    ):
        run_batch(path, tmp_path / "out.csv", sep=",", decimal=".")
    path.write_text("system;mfu\nH100_HGX;0,54\n")
    with pytest.raises(BatchError, match=r"Expected 1 columns, got 2.*separator ','"):
        run_batch(path, tmp_path / "out.csv", sep=",", decimal=".")


def test_column_names_match_case_insensitively_and_twice_is_refused(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(" System ,Mfu\nH100_HGX,0.54\n")
    run_batch(path, tmp_path / "out.csv")
    path.write_text("mfu,MFU\n0.5,0.5\n")
    with pytest.raises(BatchError, match="columns 'mfu' and 'MFU' are the same column"):
        run_batch(path, tmp_path / "o2.csv")


def test_blank_lines_keep_the_row_numbers_a_spreadsheet_shows(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("system,mfu\nH100_HGX,0.5\n\nH100_HGX,7\n")
    with pytest.raises(BadRowsError, match=r"row 4, column B \(mfu\)"):
        run_batch(path, tmp_path / "out.csv")


@pytest.mark.parametrize("ext", ["csv", "parquet", "xlsx"])
def test_results_run_again_as_input_in_every_format(csv_in, tmp_path, ext):
    first, second = tmp_path / f"r1.{ext}", tmp_path / f"r2.{ext}"
    run_batch(csv_in, first)
    run_batch(first, second)
    read = {"csv": pd.read_csv, "parquet": pd.read_parquet, "xlsx": pd.read_excel}[ext]
    pd.testing.assert_frame_equal(read(first), read(second))
    assert read(first)["usd_per_kwh"].isna().tolist() == [True, False, False]  # still empty


def test_a_byte_order_mark_and_windows_line_ends(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffSystem;MFU\r\nH100_HGX;0,54\r\n".encode())
    run_batch(path, tmp_path / "out.csv")
    out = pd.read_csv(tmp_path / "out.csv")
    assert list(out.columns[:2]) == ["System", "MFU"] and out["MFU"][0] == 0.54


# -- the project's inputs: every bad one named by row and column (issue 40) ----------------------

PROJECT_HEAD = (
    "system,mfu,rent_usd_per_gpu_hour,life_years,periods,debt_fraction,debt_years,"
    "depreciation_years,depreciation_method,build_months"
)
PROJECT_CLEAN = ["H100_HGX", "0.5", "2.0", "5", "year", "0.5", "4", "5", "macrs_5", "12"]
#: a bad cell in row 3 (column, value) and the line `gputco batch` prints for it: the row and
#: the column as a spreadsheet shows them, the argument, the value and the valid range
PROJECT_BAD = [
    (
        ("debt_years", "2.5"),
        "row 3, column G (debt_years): debt_years must be a whole number of periods in (0, life_years] "
        '(whole years with periods "year", whole months with "month"), got 2.5',
    ),
    (
        ("debt_years", "7"),
        "row 3, column G (debt_years): debt_years must be a whole number of periods in (0, life_years = 5] "
        '(whole years with periods "year", whole months with "month"), got 7',
    ),
    (
        ("debt_years", "0"),
        "row 3, column G (debt_years): debt_years must be a whole number of periods in (0, life_years] "
        '(whole years with periods "year", whole months with "month"), got 0',
    ),
    (
        ("depreciation_years", "8"),
        "row 3, column H (depreciation_years): depreciation_years must be in (0, life_years = 5], got 8",
    ),
    (
        ("life_years", "4.5"),
        "row 3, column D (life_years): life_years must be a whole number in [1, 15], got 4.5",
    ),
    (
        ("periods", "yaer"),
        "row 3, column E (periods): unknown periods 'yaer'; valid: month, year. Did you mean year?",
    ),
    (
        ("depreciation_method", "macrs_6"),
        "row 3, column I (depreciation_method): unknown depreciation_method 'macrs_6'; valid: "
        "macrs_5, macrs_7, straight_line. Did you mean macrs_7?",
    ),
    (("debt_fraction", "-0.5"), "row 3, column F (debt_fraction): debt_fraction must be in [0, 1), got -0.5"),
    (
        ("build_months", "6"),
        'row 3, column J (build_months): build_months must be a multiple of 12 with periods "year", got 6',
    ),
]


def _project_file(tmp_path, ext: str, rows: list[list[str]]):
    """A CSV or an .xlsx (numbers as numbers) of PROJECT_HEAD and ``rows``."""
    path = tmp_path / f"in.{ext}"
    if ext == "csv":
        path.write_text("\n".join([PROJECT_HEAD, *(",".join(r) for r in rows)]) + "\n")
        return path
    wb = openpyxl.Workbook()
    wb.active.append(PROJECT_HEAD.split(","))
    for r in rows:
        wb.active.append([float(v) if v and v[0] in "-0123456789" else v for v in r])
    wb.save(path)
    return path


@pytest.mark.parametrize("ext", ["csv", "xlsx"])
@pytest.mark.parametrize(("cell", "line"), PROJECT_BAD, ids=[f"{c}={v}" for (c, v), _ in PROJECT_BAD])
def test_every_bad_project_input_names_its_row_and_column(tmp_path, capsys, ext, cell, line):
    """Through the CLI: a bad project input, in a cell of its own or against another input (a
    tenor beyond the life, a tenor of part of a period), is one line naming the row and column
    (the latter's rules lost both); exit 2, nothing written. Control: the clean rows run."""
    bad = dict(zip(PROJECT_HEAD.split(","), PROJECT_CLEAN, strict=True))
    bad[cell[0]] = cell[1]
    src = _project_file(tmp_path, ext, [PROJECT_CLEAN, list(bad.values())])
    assert main(["batch", str(src), "-o", str(tmp_path / "out.csv")]) == 2
    assert line in capsys.readouterr().err.splitlines()[-1]
    assert not (tmp_path / "out.csv").exists()
    clean = _project_file(tmp_path, ext, [PROJECT_CLEAN, PROJECT_CLEAN])
    assert main(["batch", str(clean), "-o", str(tmp_path / "out.csv"), "--force"]) == 0


def test_a_scenario_alone_in_its_kind_of_period_keeps_its_row(tmp_path, capsys):
    """The one month scenario among year scenarios, and a file of one scenario: the model checks
    each kind of period apart, and its error on a group of one had no index (no row)."""
    month = [*PROJECT_CLEAN[:4], "month", "0.5", "4.3", "5", "macrs_5", "3"]
    src = _project_file(tmp_path, "csv", [PROJECT_CLEAN, PROJECT_CLEAN, month, PROJECT_CLEAN])
    assert main(["batch", str(src), "-o", str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert "row 4, column G (debt_years): debt_years must be a whole number of periods" in err
    assert err.rstrip().endswith("got 4.3")
    one = _project_file(tmp_path, "csv", [month])
    assert main(["batch", str(one), "-o", str(tmp_path / "out.csv")]) == 2
    assert "row 2, column G (debt_years): " in capsys.readouterr().err


# -- the break-even rent with contracts (issue 40) -----------------------------------------------


@pytest.mark.parametrize("ext", ["csv", "xlsx"])
def test_the_breakeven_rent_with_contracts_says_why_it_is_empty_without_a_warning(tmp_path, ext):
    """Through the CLI, warnings as errors: every GPU under contract for the life gives an empty
    break-even rent and breakeven_rent_why says so; contracts that pay alone give the market
    rent's root of the NPV line below 0, kept as the number (the NPV at two market rents,
    extrapolated to 0); no rent says that; a rent without contracts has no reason."""
    import subprocess
    import sys

    head = "id,system,mfu,rent_usd_per_gpu_hour,contracted_fraction,contract_rent_usd_per_gpu_hour,periods"
    rows = [
        ["full", "H100_HGX", "0.5", "2.0", "1", "3.0", "month"],
        ["pays", "H100_HGX", "0.5", "2.0", "0.9", "6.0", "month"],
        ["none", "H100_HGX", "0.5", "2.0", "0", "", "year"],
        ["norent", "H100_HGX", "0.5", "", "", "", ""],
    ]
    src = tmp_path / f"in.{ext}"
    if ext == "csv":
        src.write_text("\n".join([head, *(",".join(r) for r in rows)]) + "\n")
    else:
        wb = openpyxl.Workbook()
        wb.active.append(head.split(","))
        for r in rows:
            wb.active.append([float(v) if v[:1].isdigit() else (v or None) for v in r])
        wb.save(src)
    out = tmp_path / "out.csv"
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-m", "gputco.addin.cli", "batch", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "Warning" not in proc.stderr, proc.stderr
    df = pd.read_csv(out, keep_default_na=False)
    rent = df["project_breakeven_rent_usd_per_gpu_hour"]
    why = list(df["project_breakeven_rent_why"])
    assert rent[0] == "" and why[0] == "no market rent: every GPU is under contract for the whole life"
    assert rent[3] == "" and why[3] == "no rent_usd_per_gpu_hour given"
    assert why[1] == why[2] == ""
    pays = {"system": "H100_HGX", "mfu": 0.5, "contracted_fraction": 0.9,
            "contract_rent_usd_per_gpu_hour": 6.0, "periods": "month"}  # fmt: skip
    npv = [
        scenario.evaluate({**pays, "rent_usd_per_gpu_hour": r})["project_npv_usd_per_gpu"][0]
        for r in (1.0, 3.0)
    ]
    root = 1.0 - npv[0] * (3.0 - 1.0) / (npv[1] - npv[0])
    assert float(rent[1]) < 0 and float(rent[1]) == pytest.approx(root, rel=1e-9)
    assert float(rent[2]) == pytest.approx(scenario.evaluate({**pays, "contracted_fraction": 0.0,
        "periods": "year", "rent_usd_per_gpu_hour": 2.0})["project_breakeven_rent_usd_per_gpu_hour"][0], rel=1e-12)  # fmt: skip
