"""`gputco batch`: scenarios in CSV/Parquet/XLSX to results, chunked, atomic, row-numbered errors."""

from __future__ import annotations

import io

import numpy as np
import openpyxl
import pandas as pd
import pyarrow.parquet as pq
import pytest

import udfs
from addin.cli import main
from udfs import scenario
from workbook.batch.run import BatchError, Progress, run_batch
from workbook.xlsx.files import FileExistsRefusal

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
    return scenario.evaluate({
        "system": ["H100_HGX", "GB200_NVL72", "H100_HGX"],
        "buyer": ["hyperscaler", "neocloud_giant", "emerging_neocloud"],
        "precision": ["bf16", "fp8", "bf16"],
        "mfu": [0.54, 0.4, 0.3],
        "usd_per_kwh": [np.nan, 0.12, 0.05],
        "tokens": [300e9, 1e12, 300e9],
    })


@pytest.mark.parametrize("ext", ["csv", "parquet", "xlsx"])
def test_results_equal_the_model_in_every_format(csv_in, tmp_path, ext):
    out = tmp_path / f"results.{ext}"
    report = run_batch(csv_in, out)
    assert report.rows == 3
    df = (pd.read_csv(out) if ext == "csv" else pd.read_parquet(out) if ext == "parquet"
          else pd.read_excel(out))
    assert list(df["id"]) == ["a", "b", "c"]
    expected = _expected()
    for name in scenario.OUTPUTS:
        np.testing.assert_allclose(df[name].to_numpy(float), expected[name], rtol=1e-12)
    # Empty cells used the presets: row a is the hyperscaler H100 at $1.42.
    assert df["tco_usd_per_gpu_hour"][0] == pytest.approx(udfs.tco_gpu_hour("H100_HGX"))


def test_chunks_give_the_same_results_as_one_pass(csv_in, tmp_path):
    run_batch(csv_in, tmp_path / "one.parquet")
    run_batch(csv_in, tmp_path / "many.parquet", chunk_rows=1)
    one, many = pq.read_table(tmp_path / "one.parquet"), pq.read_table(tmp_path / "many.parquet")
    assert one.equals(many)


def test_a_results_file_runs_again_as_input(csv_in, tmp_path):
    run_batch(csv_in, tmp_path / "r1.parquet")
    run_batch(tmp_path / "r1.parquet", tmp_path / "r2.parquet")
    assert pq.read_table(tmp_path / "r1.parquet").equals(pq.read_table(tmp_path / "r2.parquet"))


def test_bad_number_names_the_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("system,mfu\nH100_HGX,0.4\nH100_HGX,0.5\nGB200_NVL72,1.7\n")
    with pytest.raises(BatchError, match=r"^row 4: mfu must be in \(0, 1\], got 1.7"):
        run_batch(path, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    assert not list(tmp_path.glob(".~*"))  # no temporary file left behind


def test_unknown_column_and_unknown_preset(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("system,mfu,electricity\nH100_HGX,0.4,0.1\n")
    with pytest.raises(udfs.UnknownNameError, match="unknown batch column 'electricity'"):
        run_batch(path, tmp_path / "out.csv")
    path.write_text("system,mfu\nH100_HXG,0.4\n")
    with pytest.raises(udfs.UnknownNameError, match="Did you mean H100_HGX"):
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
    with pytest.raises(BatchError, match="row 4"):
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
    assert lines[1].startswith('"\'=HYPERLINK') and lines[2].startswith('"\'@SUM')


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
    assert err.startswith("gputco batch: error: cannot read ") and err.rstrip().endswith(
        "missing.csv: no such file") and "Traceback" not in err
    assert main(["batch", str(csv_in), "-o", str(tmp_path / "no-such-dir" / "x.csv")]) == 3
    assert "cannot write" in capsys.readouterr().err
