"""`gputco template [-o FILE]`: write the finance workbook and print its headline numbers."""

from __future__ import annotations

import argparse

from gputco import udfs
from gputco.addin.report import aligned
from gputco.udfs import presets

from .commands import add_workbook_output, command

DEFAULT_OUTPUT = "gpu-tco.xlsx"


def add_parser(sub) -> None:
    p = command(
        sub,
        "template",
        "Write the finance workbook: Cover, Inputs (drop-downs, named input cells), "
        "Model (native formulas), Compare (ratios, break-even speed-up and MFU, charts), "
        "Benchmarks (published runs recomputed), Checks (TCO_ functions against the native "
        "formulas), Presets (tables with sources) and xlwings.conf. Every formula carries a "
        "computed value, so the file opens with numbers in Excel, LibreOffice, pandas or a viewer.",
    )
    add_workbook_output(p, DEFAULT_OUTPUT)
    p.add_argument(
        "--systems",
        default="H100_HGX,GB200_NVL72",
        help="comma-separated system presets, one column each; the first is the "
        "reference on Compare (default: %(default)s)",
    )
    p.add_argument(
        "--buyer",
        default=presets.DEFAULT_BUYER,
        help="buyer type: hyperscaler, neocloud_giant, emerging_neocloud (default: %(default)s)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="type VALUE into the Inputs cell named NAME before the workbook is calculated "
        "(repeatable; e.g. --set inp_debt_fraction=0.6 --set inp_periods=month; 60%% is 0.6; "
        "checked as the cell's data validation checks it in Excel; a curve as text, "
        '--set inp_rent_curve_1="1, 0.6", each factor checked)',
    )
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.set_defaults(run=run)


def _xlwings_rows():
    """The xlwings.conf rows from addin.xlwings_conf when it exists, else None (the fallback)."""
    try:
        from .xlwings_conf import xlwings_conf_rows
    except ImportError:
        return None
    return [tuple(r) for r in xlwings_conf_rows()]


def run(args: argparse.Namespace) -> int:
    from gputco.workbook.finance.build import system_keys, write_template
    from gputco.workbook.xlsx.setinputs import parse_assignment

    keys = system_keys(args.systems)
    buyer = presets.buyer(args.buyer).key
    inputs = dict(parse_assignment(a) for a in args.set)
    result = write_template(
        args.output, keys, buyer, force=args.force, xlwings_rows=_xlwings_rows(), inputs=inputs
    )
    print(
        f"wrote {result.path} ({', '.join(keys)}; buyer {buyer}) in "
        f"{result.build_seconds + result.recalc_seconds:.2f} s"
    )
    print(workbook_table(result.path, keys) if inputs else summary_table(keys, buyer))
    return 0


#: what ``--set`` prints: the written workbook's own values of these ``out_`` rows
WORKBOOK_ROWS = (
    "capex_per_gpu tco_usd_per_gpu_hour usd_per_mtok cluster_capex_usd cluster_npv_usd project_irr "
    "equity_irr min_dscr cluster_peak_funding_usd"
).split()


def _shown(key: str, v) -> str:
    if isinstance(v, str) or v is None:
        return v or ""
    return (
        f"{v:.2%}" if key.endswith("irr") else f"{v:,.0f}" if key.endswith(("_usd", "_gpu")) else f"{v:.4f}"
    )


def workbook_table(path, keys: list[str]) -> str:
    """The headline rows as the workbook at ``path`` computed them with the inputs typed in (a
    text where the workbook shows one: "needs rent", "no debt")."""
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True, read_only=False)

    def value(name: str):
        sheet, ref = next(iter(wb.defined_names[name].destinations))
        return wb[sheet][ref.replace("$", "")].value

    rows = [["", *keys]]
    for key in WORKBOOK_ROWS:
        rows.append([key, *(_shown(key, value(f"out_{key}_{k}")) for k in range(1, len(keys) + 1))])
    return "\n".join(["the workbook's values with your inputs:", *aligned(rows)])


def summary_table(keys: list[str], buyer: str) -> str:
    """The workbook's default scenario by udfs: capex, TCO, cost per Mtok, J/token, household-years.

    >>> print(summary_table(["H100_HGX", "GB200_NVL72"], "hyperscaler"))  # doctest: +ELLIPSIS
    default run: gpt3_175b, bf16, 300B tokens
    system       capex/GPU  TCO $/GPU-h  $/Mtok  J/token  household-years  TCO ratio    MFU
    H100_HGX        31,250       1.4199  0.7966    3.647            28.16      1.000  54.0%
    GB200_NVL72     54,167       2.2494  0.4994    1.746            13.48      1.584  54.0%
    MFU source: H100_HGX measured: sa_gpt3_175b_bf16_dec2024; GB200_NVL72 assumed (the H100 figure)
    """
    from gputco.workbook.finance.inputs import SCENARIO_DEFAULTS

    model, precision = SCENARIO_DEFAULTS["inp_model"], SCENARIO_DEFAULTS["inp_precision"]
    tokens = SCENARIO_DEFAULTS["inp_tokens"]
    fpt = udfs.tco_flops_per_token(model, None, SCENARIO_DEFAULTS["inp_convention"])
    ref = keys[0]
    rows = [
        ["system", "capex/GPU", "TCO $/GPU-h", "$/Mtok", "J/token", "household-years", "TCO ratio", "MFU"]
    ]
    sources = []
    for key in keys:
        default = presets.default_mfu(key, precision)
        mfu = default.value
        tco = udfs.tco_gpu_hour(key, buyer)
        peak = presets.peak_tflops(key, precision)
        watts = udfs.tco_utility_watts_per_gpu(
            presets.system(key).value("it_kw_per_gpu"), presets.buyer(buyer).value("pue")
        )
        jpt = udfs.tco_joules_per_token(watts, fpt, peak, mfu)
        rows.append(
            [
                key,
                f"{udfs.tco_capex_per_gpu(key, buyer):,.0f}",
                f"{tco:.4f}",
                f"{udfs.tco_cost_per_mtok(tco, fpt, peak, mfu):.4f}",
                f"{jpt:.3f}",
                f"{udfs.tco_household_years(jpt * tokens):.2f}",
                f"{udfs.tco_ratio(ref, key, buyer):.3f}",
                f"{mfu:.1%}",
            ]
        )
        source = presets.mfu_source(default)
        sources.append(f"{key} {source}" + (" (the H100 figure)" if source == "assumed" else ""))
    lines = [f"default run: {model}, {precision}, {tokens / 1e9:.0f}B tokens", *aligned(rows)]
    lines.append("MFU source: " + "; ".join(sources))
    return "\n".join(lines)
