"""Bad scenario SPECs: one clear error that names the key, and exit code 2 with one line on stderr.

Each case below is a SPEC (TOML text) with one problem and the start of the message it must give.
"""

from __future__ import annotations

import pytest

from gputco.addin.cli import main
from gputco.udfs.errors import GputcoError
from gputco.workbook.scenarios.spec import MAX_SCENARIOS, SpecError, load_spec, parse_spec

GOOD = "mfu = [0.4, 0.5]\n"
BAD = {
    "no grid": ("[fixed]\nmfu = 0.4\n", "grid: the SPEC needs a [grid] table"),
    "empty grid list": ("[grid]\nmfu = []\n", "grid.mfu: the list is empty"),
    "grid value not a list": ("[grid]\nmfu = 0.4\n", "grid.mfu: must be a list of values"),
    "unknown input": (
        "[grid]\nmuf = [0.4]\n",
        "grid.muf: unknown scenario input 'muf'; valid: availability, base_rate_curve, bonus_depreciation_fraction, build_months, buyer",
    ),
    "unknown table": ("[gird]\nmfu = [0.4]\n", "gird: unknown SPEC table 'gird'"),
    "out of range": ("[grid]\n" + GOOD + "pue = [1.2, 0.9]\n", "grid.pue: pue must be in [1, 5], got 0.9"),
    "mfu above 1": ("[grid]\nmfu = [0.4, 1.5]\n", "grid.mfu: mfu must be in (0, 1], got 1.5"),
    "text for a number": ('[grid]\nmfu = [0.4, "high"]\n', "grid.mfu: must be a number, got 'high'"),
    "boolean": ("[grid]\nmfu = [0.4, true]\n", "grid.mfu: must be a number, got True"),
    "not finite": ("[grid]\n" + GOOD + "[fixed]\npue = nan\n", "fixed.pue: must be a finite number"),
    "unknown preset": (
        "[grid]\n" + GOOD + 'system = ["H100"]\n',
        "grid.system: unknown system 'H100'; valid: B200_HGX",
    ),
    "duplicate": ("[grid]\nmfu = [0.4, 0.4]\n", "grid.mfu: 0.4 is listed twice"),
    "grid and fixed": ("[grid]\n" + GOOD + "[fixed]\nmfu = 0.3\n", "fixed.mfu: also in [grid]"),
    "list in fixed": ("[grid]\n" + GOOD + "[fixed]\npue = [1.2]\n", "fixed.pue: one value expected"),
    "no mfu": ("[grid]\npue = [1.2]\n", "grid: every scenario needs an MFU"),
    "no such peak": (
        "[grid]\n" + GOOD + 'system = ["H100_HGX"]\n[fixed]\nprecision = "fp4"\n',
        "fixed.precision: peak_tflops is required: system H100_HGX has no fp4",
    ),
    "too large": (
        "[grid]\nmfu = ["
        + ", ".join(str(0.1 + i * 1e-4) for i in range(101))
        + "]\nusd_per_kwh = ["
        + ", ".join(str(0.05 + i * 1e-5) for i in range(1000))
        + "]\n",
        f"grid: 101,000 scenarios (mfu 101 x usd_per_kwh 1000) is more "
        f"than the limit of {MAX_SCENARIOS:,} rows",
    ),
    "swing too large": (
        "[grid]\n" + GOOD + "[sensitivity]\nswing = 1.5\n",
        "sensitivity.swing: must be a fraction in (0, 1)",
    ),
    "swing moves out of range": ("[grid]\nmfu = [0.9]\n", "sensitivity.mfu: the high case (mfu = 1.08"),
    "text driver": (
        "[grid]\n" + GOOD + '[sensitivity]\ninputs = ["system"]\n',
        "sensitivity.inputs: system is text",
    ),
    "unknown sensitivity key": (
        "[grid]\n" + GOOD + "[sensitivity]\nswings = 0.1\n",
        "sensitivity.swings: unknown sensitivity key",
    ),
    "unknown distribution": (
        "[grid]\n" + GOOD + '[monte_carlo]\nmfu = { dist = "gauss" }\n',
        "monte_carlo.mfu: unknown distribution 'gauss'",
    ),
    "missing parameter": (
        "[grid]\n" + GOOD + '[monte_carlo]\nmfu = { dist = "normal", mean = 0.4 }\n',
        "monte_carlo.mfu: sd is required: normal needs mean, sd",
    ),
    "bad parameter": (
        "[grid]\n" + GOOD + '[monte_carlo]\nmfu = { dist = "uniform", low = 0.5, high = 0.4 }\n',
        "monte_carlo.mfu: high must be in (low, inf)",
    ),
    "invalid draws": (
        "[grid]\n" + GOOD + '[monte_carlo]\nmfu = { dist = "normal", mean = 0.5, sd = 0.3 }\n',
        "monte_carlo.mfu: some draws are invalid: mfu must be in (0, 1]",
    ),
    "too many draws": (
        "[grid]\n" + GOOD + "[monte_carlo]\ndraws = 1000000\n"
        'mfu = { dist = "uniform", low = 0.3, high = 0.5 }\n',
        "monte_carlo.draws: must be a whole number in [1, 100,000]",
    ),
    "no distribution": (
        "[grid]\n" + GOOD + "[monte_carlo]\ndraws = 10\n",
        "monte_carlo: give at least one input's distribution",
    ),
    "random text input": (
        "[grid]\n" + GOOD + '[monte_carlo]\nsystem = { dist = "uniform", low = 0, high = 1 }\n',
        "monte_carlo.system: system is text",
    ),
}


def _load(tmp_path, text: str):
    path = tmp_path / "spec.toml"
    path.write_text(text, encoding="utf-8")
    return load_spec(path)


@pytest.mark.parametrize("case", list(BAD))
def test_bad_spec_names_the_key(tmp_path, case):
    text, message = BAD[case]
    with pytest.raises(SpecError) as info:
        _load(tmp_path, text)
    assert str(info.value).startswith(message), str(info.value)
    assert isinstance(info.value, GputcoError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)
    assert info.value.key == message.split(":")[0]


def test_not_toml(tmp_path):
    with pytest.raises(SpecError, match=r"spec\.toml: not valid TOML: .*line 2"):
        _load(tmp_path, "[grid]\nmfu = 0.4 0.5\n")


def test_a_good_spec_parses(tmp_path):
    spec = _load(tmp_path, "[grid]\n" + GOOD + 'system = ["h100 hgx", "GB200-NVL72"]\n')
    assert spec.n_scenarios == 4 and spec.grid["system"] == ("H100_HGX", "GB200_NVL72")
    assert spec.base == {"mfu": 0.4, "system": "H100_HGX"}


def test_cli_bad_spec_exits_2_with_one_line(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text("[grid]\nmfu = [0.4]\npue = [0.9]\n", encoding="utf-8")
    out = tmp_path / "out.xlsx"
    assert main(["scenarios", str(spec), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err == "gputco scenarios: error: grid.pue: pue must be in [1, 5], got 0.9\n"
    assert captured.out == "" and not out.exists()
    assert list(tmp_path.iterdir()) == [spec]  # no temporary file left behind


def test_cli_missing_spec_file_and_no_spec(tmp_path, capsys):
    assert main(["scenarios", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.toml: no such file" in err
    assert main(["scenarios"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SPEC is required" in err and "--example" in err


def test_parse_spec_rejects_a_table_that_is_not_a_table():
    with pytest.raises(SpecError, match=r"^fixed: must be a table"):
        parse_spec({"grid": {"mfu": [0.4]}, "fixed": 3})


def test_readme_documents_the_command_and_every_input():
    from pathlib import Path

    from gputco.udfs import scenario

    docs = Path(__file__).resolve().parents[1] / "docs"
    section = (docs / "scenarios.md").read_text(encoding="utf-8")
    for name in scenario.INPUT_NAMES:
        assert f"| `{name}` |" in section, name
    for table in ("[grid]", "[fixed]", "[base]", "[sensitivity]", "[monte_carlo]"):
        assert table in section
    assert "| `gputco scenarios SPEC.toml" in (docs / "cli.md").read_text(encoding="utf-8")
    assert f"{MAX_SCENARIOS:,} scenarios" in section


def test_zipped_grid_lists_vary_together(tmp_path):
    """One MFU per system: zip = [["system", "mfu"]] pairs the lists, so each system
    is compared at its own MFU, crossed with the other grid lists."""
    import openpyxl

    from gputco.udfs import scenario
    from gputco.workbook.scenarios.build import write_scenarios

    spec = parse_spec(
        {
            "grid": {
                "system": ["H100_HGX", "GB200_NVL72"],
                "mfu": [0.54, 0.40],
                "usd_per_kwh": [0.05, 0.10],
                "zip": [["system", "mfu"]],
            }
        }
    )
    assert spec.n_scenarios == 4
    write_scenarios(spec, tmp_path / "s.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "s.xlsx", data_only=True)["Scenarios"]
    keys = [c.value for c in ws[5]]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=6)]
    pairs = [(r[keys.index("system")], r[keys.index("mfu")], r[keys.index("usd_per_kwh")]) for r in rows]
    assert pairs == [
        ("H100_HGX", 0.54, 0.05),
        ("H100_HGX", 0.54, 0.10),
        ("GB200_NVL72", 0.40, 0.05),
        ("GB200_NVL72", 0.40, 0.10),
    ]
    want = scenario.evaluate(
        {"system": [p[0] for p in pairs], "mfu": [p[1] for p in pairs], "usd_per_kwh": [p[2] for p in pairs]}
    )["usd_per_mtok"]
    got = [r[keys.index("usd_per_mtok")] for r in rows]
    assert got == pytest.approx(list(want), rel=1e-9)


@pytest.mark.parametrize(
    ("zipped", "message"),
    [
        ([["system", "mfu"]], "grid.zip: the lists of system, mfu vary together and need one length"),
        ([["system", "pue"]], "grid.zip: 'pue' is not a list in [grid]"),
        ("system", "grid.zip: must be a list of groups of grid inputs"),
    ],
)
def test_a_bad_zip_is_named(zipped, message):
    with pytest.raises(SpecError) as err:
        parse_spec({"grid": {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5], "zip": zipped}})
    assert str(err.value).startswith(message)
