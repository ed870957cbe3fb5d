"""What udfs says every keyed row of the finance workbook's Model and Compare sheets must hold.

The tests walk every row of those sheets (column A is the row's key) and every system column, and
look the key up here: a row without an entry fails the test, so a new row needs its udfs twin.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from gputco import udfs
from gputco.udfs import chain, compute, presets, scenario
from gputco.udfs.energy import JOULES_PER_KWH
from gputco.workbook.xlsx.book import FIRST_SYSTEM_COL

SWEEP_START, SWEEP_STEP = 0.20, 0.05  # the Compare sheet's MFU sweep defaults (Inputs)
KEY = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Scenario:
    """The inputs of one workbook: systems (one per column), buyer, and any overrides by the
    scenario input names of udfs.scenario (a value, or a list with one value per column)."""

    systems: list[str]
    buyer: str = "hyperscaler"
    model: str = "gpt3_175b"
    precision: str = "bf16"
    convention: str = "palm"
    mfu: list[float] = field(default_factory=list)
    tokens: float = 300e9
    gpus: float = 128
    kwh: float = udfs.KWH_PER_HOUSEHOLD_YEAR
    overrides: dict[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if not self.mfu:
            self.mfu = [0.54] * len(self.systems)


def _per_column(value, k):
    return value[k] if isinstance(value, list) else value


def model_columns(sc: Scenario) -> list[dict[str, object]]:
    """Expected Model values, one dict (key -> value) per system column."""
    cols = []
    m = presets.model(sc.model)
    for k, s in enumerate(sc.systems):
        b = presets.buyer(sc.buyer)
        ov = {name: _per_column(v, k) for name, v in sc.overrides.items() if _per_column(v, k) is not None}
        inputs = {
            "system": s,
            "buyer": sc.buyer,
            "model": sc.model,
            "precision": sc.precision,
            "convention": sc.convention,
            "mfu": sc.mfu[k],
            "tokens": sc.tokens,
            "gpus": sc.gpus,
            "kwh_per_household_year": sc.kwh,
            **ov,
        }
        ev = {
            key: float(v[0])
            for key, v in scenario.evaluate(
                {n: [v] if not isinstance(v, str) else v for n, v in inputs.items()}
            ).items()
        }
        buyer_value = {f: ov.get(f, b.value(f)) for f in chain.BUYER_INPUTS}
        seq = ov.get("seq_len", m.value("seq_len"))
        fpt = udfs.tco_flops_per_token(sc.model, seq, sc.convention)
        peak = ov.get("peak_tflops", presets.peak_tflops(s, sc.precision))
        kw = ov.get("it_kw_per_gpu", presets.system(s).value("it_kw_per_gpu"))
        capex = ov.get("capex_per_gpu", udfs.tco_capex_per_gpu(s, sc.buyer))
        capital = udfs.tco_capital_per_gpu_hour(
            capex, buyer_value["cost_of_capital"], buyer_value["life_years"], buyer_value["residual_fraction"]
        )
        power = udfs.tco_power_per_gpu_hour(kw, buyer_value["pue"], buyer_value["usd_per_kwh"])
        facility = udfs.tco_colo_per_gpu_hour(kw, buyer_value["colo_usd_per_kw_month"])
        other = buyer_value["other_usd_per_gpu_hour"]
        tco = udfs.tco_total_per_gpu_hour(
            capex,
            buyer_value["cost_of_capital"],
            buyer_value["life_years"],
            kw,
            buyer_value["pue"],
            buyer_value["usd_per_kwh"],
            buyer_value["colo_usd_per_kw_month"],
            buyer_value["residual_fraction"],
            other,
        )
        if not sc.overrides:  # the name-based functions must agree with the explicit ones
            parts = dict(udfs.tco_breakdown(s, sc.buyer)[1:])
            assert (capital, power, facility, other) == (
                parts["capital"],
                parts["power"],
                parts["facility"],
                parts["other"],
            )
            tco = udfs.tco_gpu_hour(s, sc.buyer)
        mfu = sc.mfu[k]
        tps = udfs.tco_tokens_per_gpu_second(fpt, peak, mfu)
        watts = udfs.tco_utility_watts_per_gpu(kw, buyer_value["pue"])
        jpt = udfs.tco_joules_per_token(watts, fpt, peak, mfu)
        col = {
            "system": s,
            "buyer": sc.buyer,
            "model": sc.model,
            "precision": sc.precision,
            "convention": sc.convention,
            "capex_per_gpu": capex,
            **{f: buyer_value[f] for f in chain.BUYER_INPUTS if f != "other_usd_per_gpu_hour"},
            "capital_usd_per_gpu_hour": capital,
            "it_kw_per_gpu": kw,
            "power_usd_per_gpu_hour": power,
            "facility_usd_per_gpu_hour": facility,
            "other_usd_per_gpu_hour": other,
            "opex_usd_per_gpu_hour": power + facility + other,
            "tco_usd_per_gpu_hour": tco,
            "peak_tflops": peak,
            "seq_len": seq,
            **{f: m.value(f) for f in compute.ARCH_FIELDS},
            "flops_palm": udfs.tco_flops_per_token(sc.model, seq, "palm"),
            "flops_6n": udfs.tco_flops_per_token(sc.model, seq, "6n"),
            "flops_megatron": udfs.tco_flops_per_token(sc.model, seq, "megatron"),
            "flops_per_token": fpt,
            "mfu": mfu,
            "tokens_per_gpu_second": tps,
            "usd_per_mtok": udfs.tco_cost_per_mtok(tco, fpt, peak, mfu),
            "tokens": sc.tokens,
            "gpus": sc.gpus,
            "training_cost_usd": udfs.tco_training_cost(sc.tokens, tco, fpt, peak, mfu),
            "training_gpu_hours": sc.tokens / tps / 3600,
            "training_days": udfs.tco_training_days(sc.tokens, sc.gpus, fpt, peak, mfu),
            "utility_watts_per_gpu": watts,
            "joules_per_token": jpt,
            "training_energy_kwh": sc.tokens * jpt / JOULES_PER_KWH,
            "kwh_per_household_year": sc.kwh,
            "household_years": udfs.tco_household_years(sc.tokens * jpt, sc.kwh),
            "tokens_per_household_year": sc.tokens / udfs.tco_household_years(sc.tokens * jpt, sc.kwh),
            "kg_co2_per_kwh": udfs.energy.KG_CO2_PER_KWH_US,
            "co2_tonnes": udfs.energy.tco_co2_tonnes(sc.tokens * jpt),
        }
        col.update(_decisions(s, sc, buyer_value, capex, tco, power + facility + other, kw))
        col.update(project_rows(col))
        # udfs.scenario (the batch engine's chain) must say the same
        for key, out in (
            ("capex_per_gpu", "capex_per_gpu"),
            ("tco_usd_per_gpu_hour", "tco_usd_per_gpu_hour"),
            ("usd_per_mtok", "usd_per_mtok"),
            ("joules_per_token", "joules_per_token"),
            ("household_years", "household_years"),
            ("training_days", "training_days"),
        ):
            assert abs(col[key] / ev[out] - 1) < 1e-12, (key, col[key], ev[out])
        cols.append(col)
    return cols


def _decisions(system, sc, buyer, capex, tco, opex, kw) -> dict[str, object]:
    """The decision rows at the template's defaults (availability, utilisation, goodput 1, no
    tax, decline or escalation; the sourced default rent), from udfs.decisions' functions."""
    from gputco.udfs import decisions
    from gputco.workbook.finance.inputs import default_rent

    rent = default_rent(system)
    if rent is None:
        return _decisions_without_rent(system, sc, buyer, capex, tco, opex, kw)
    life, rate, res = buyer["life_years"], buyer["cost_of_capital"], buyer["residual_fraction"]
    cluster = dict(decisions.tco_cluster(system, sc.gpus, sc.buyer)[1:]) if not sc.overrides else None
    col = {
        "availability": 1.0,
        "utilisation": 1.0,
        "goodput": 1.0,
        "serve_tokens_per_gpu_second": "",
        "usd_per_mtok_served": "needs serve_tokens_per_gpu_second",
        "delivered_usd_per_gpu_hour": decisions.tco_delivered_gpu_hour(tco),
        "rent_usd_per_gpu_hour": rent,
        "tax_rate": 0.0,
        "depreciation_years": life,
        "rent_decline_per_year": 0.0,
        "opex_escalation_per_year": 0.0,
        "opex_usd_per_gpu_hour": opex,
        "cash_breakeven_utilisation": decisions.tco_cash_breakeven_utilisation(tco, rent),
        "breakeven_utilisation": _breakeven_utilisation(capex, rent, opex, life, rate, res),
        "npv_usd_per_gpu": decisions.tco_npv(capex, rent, opex, life, rate, res),
        "irr": decisions.tco_irr(capex, rent, opex, life, res),
        "payback_years": decisions.tco_payback_years(capex, rent, opex, life, res),
        "npv_per_unit_rent": (
            decisions.tco_npv(capex, rent, opex, life, rate, res)
            - decisions.tco_npv(capex, rent / 2, opex, life, rate, res)
        )
        / (rent / 2),
        "breakeven_rent_usd_per_gpu_hour": decisions.tco_breakeven_rent(capex, opex, life, rate, res),
        **_cluster(system, sc, buyer, capex, tco, opex, kw),
    }
    if cluster:  # the table function agrees with the explicit arithmetic
        for key in (
            "cluster_units",
            "cluster_gpus_installed",
            "cluster_capex_usd",
            "cluster_tco_usd_per_year",
        ):
            assert math.isclose(cluster[key], col[key], rel_tol=1e-12), key
    return col


def project_rows(col: dict[str, object], given: dict[str, object] | None = None) -> dict[str, object]:
    """The Model rows of the cluster project (workbook/finance/projectflows.py) from
    udfs.project.results on the column's chain values and the project inputs ``given`` (by
    their names in udfs.project; none: the defaults, where the results are today's)."""
    from gputco.udfs import periodlines, project
    from gputco.workbook.finance import projectflows

    p = {k: v for k, v in (given or {}).items() if v is not None}
    rent = col["rent_usd_per_gpu_hour"]
    coc, life = col["cost_of_capital"], col["life_years"]
    used: dict[str, object] = {
        "periods": p.get("periods", "year"),
        "build_months": p.get("build_months", 0.0),
        "ramp_months": p.get("ramp_months", 0.0),
        "idle_power_fraction": p.get("idle_power_fraction", 1.0),
        **{
            k: p.get(k, 0.0)
            for k in (
                "maintenance_fraction_per_year",
                "staff_usd_per_gpu_year",
                "insurance_fraction_per_year",
                "software_usd_per_gpu_hour",
                "contracted_fraction",
            )
        },
        "contract_rent_usd_per_gpu_hour": p.get("contract_rent_usd_per_gpu_hour", rent),
        "contract_years": p.get("contract_years", life),
        "debt_fraction": p.get("debt_fraction", 0.0),
        "debt_rate": p.get("debt_rate", coc),
        "debt_years": p.get("debt_years", life),
        "cost_of_equity": p.get("cost_of_equity", coc),
        "depreciation_method": p.get("depreciation_method", "straight_line"),
        "bonus_depreciation_fraction": p.get("bonus_depreciation_fraction", 0.0),
        "covenant_dscr": p.get("covenant_dscr", 1.0),
        "max_ltv_covenant": p.get("max_ltv_covenant", 0.0),
        "rent_curve": p.get("rent_curve", ""),
        "value_curve": p.get("value_curve", ""),
        "base_rate_curve": p.get("base_rate_curve", ""),
    }
    # the project inputs added since (debt shapes, ...): as given, else their defaults
    for k, default in (*project.CHOICES.items(), *project.TERMS.items()):
        if k not in used and k not in col and not isinstance(default, str | type(None)):
            used[k] = p.get(k, default)
        elif k in project.CHOICES and k not in used:
            used[k] = p.get(k, default)
    ppy = project.PERIODS[str(used["periods"])]
    i = (1 + used["debt_rate"]) ** (1 / ppy) - 1
    build = used["build_months"] * ppy / 12
    debt = used["debt_fraction"] * col["capex_per_gpu"]
    at_service = debt * (1 + i) ** build
    tenor = used["debt_years"] * ppy
    payment = (at_service * i / (1 - (1 + i) ** -tenor) if i > 0 else at_service / tenor) if at_service else 0
    out = {
        **used,
        "periods_per_year": ppy,
        "months_per_period": 12 / ppy,
        "hours_per_period": 8760 / ppy,
        "build_periods": build,
        "life_periods": life * ppy,
        "project_inputs_check": "",
        "debt_period_rate": i,
        "debt_drawn_usd_per_gpu": debt,
        "debt_at_in_service": at_service,
        "tenor_periods": tenor,
        "debt_payment": payment,
    }
    terms = {k: col[k] for k in project.TERMS if k in col and k not in used}
    # the curves' text rows and the residual check, from udfs's period lines (any rent: they do
    # not read it)
    stand_in = {} if _has(rent) else {"rent_usd_per_gpu_hour": 1.0, "contract_rent_usd_per_gpu_hour": 1.0}
    lines = project.period_lines({**terms, **used, **stand_in})
    out["rent_curve_factors"] = _curve_text("rent_curve", used["rent_curve"])
    out["value_curve_factors"] = _curve_text("value_curve", used["value_curve"] or "value_base")
    out["base_rate_curve_factors"] = _curve_text("base_rate_curve", used["base_rate_curve"])
    out["end_value_fraction"] = float(lines["end_value_fraction"][0])
    # the debt schedule's scalars added since (grace, repayment periods, ...): udfs's period lines
    for x in periodlines.SCALARS:
        if x.key not in out:
            got = lines[x.key][0]
            out[x.key] = str(got) if isinstance(got, str) else float(got)
    out["residual_check"] = str(lines["residual_check"][0])
    if not _has(rent):
        return {
            **out,
            **{k: projectflows.NEEDS_RENT for k in (*projectflows.RESULTS, *projectflows.LTV_RESULTS)},
        }
    got = {k: float(v[0]) for k, v in project.results({**terms, **used}).items() if not k.endswith("_why")}
    n = col["cluster_gpus_installed"]
    dscr = got["min_dscr"]
    return {
        **out,
        "project_npv_usd_per_gpu": got["project_npv_usd_per_gpu"],
        "project_irr": got["project_irr"],
        "equity_irr": got["equity_irr"],
        "equity_npv_usd_per_gpu": got["equity_npv_usd_per_gpu"],
        "min_dscr": projectflows.NO_DEBT if math.isnan(dscr) else dscr,
        "peak_funding_usd_per_gpu": got["peak_funding_usd_per_gpu"],
        **{
            k: projectflows.NO_DEBT if math.isnan(got[k]) else got[k]
            for k in ("avg_dscr", "llcr", "plcr", "dscr_breach_periods", "max_ltv", "ltv_at_maturity")
        },
        "ltv_breach_periods": got["ltv_breach_periods"],
        "debt_usd_per_gpu": got["debt_usd_per_gpu"],
        "cluster_npv_usd": got["project_npv_usd_per_gpu"] * n,
        "cluster_equity_npv_usd": got["equity_npv_usd_per_gpu"] * n,
        "cluster_peak_funding_usd": got["peak_funding_usd_per_gpu"] * n,
    }


def _curve_text(group: str, typed: object) -> str:
    """What a curve's factors row shows: a finance preset's factors (the Presets sheet's
    ``<key>.factors`` text, udfs.curves.text of udfs.presets.finance_curve), else the text typed."""
    from gputco.udfs import curves, presets

    if typed and str(typed).strip().lower() in presets.curve_keys(group):
        return curves.text(presets.finance_curve(group, typed))
    return str(typed)


def _has(rent) -> bool:
    return isinstance(rent, float | int) and rent != ""


def _breakeven_utilisation(capex, rent, opex, life, rate, res) -> float | str:
    from gputco.udfs import decisions
    from gputco.udfs.errors import NoSolutionError

    try:
        return decisions.tco_breakeven_utilisation(capex, rent, opex, life, rate, res)
    except NoSolutionError:
        return decisions.NO_BREAKEVEN_UTILISATION


def _decisions_without_rent(system, sc, buyer, capex, tco, opex, kw) -> dict[str, object]:
    """No sourced rent (H800): the rent-free rows, and the rent-based rows say what they need."""
    col = _decisions("H100_HGX", sc, buyer, capex, tco, opex, kw)  # the rent-free rows
    col.update(_cluster(system, sc, buyer, capex, tco, opex, kw), rent_usd_per_gpu_hour="")
    for key in (
        "breakeven_utilisation",
        "cash_breakeven_utilisation",
        "npv_usd_per_gpu",
        "irr",
        "payback_years",
        "npv_per_unit_rent",
        "breakeven_rent_usd_per_gpu_hour",
    ):
        col[key] = "needs rent_usd_per_gpu_hour"
    return col


def _cluster(system, sc, buyer, capex, tco, opex, kw) -> dict[str, object]:
    """The cluster rows: every total counts the GPUs installed (whole servers or racks)."""
    gpu_unit = presets.system(system).value("gpus_per_unit")
    installed = math.ceil(sc.gpus / gpu_unit) * gpu_unit
    return {
        "gpus_per_unit": gpu_unit,
        "cluster_units": math.ceil(sc.gpus / gpu_unit),
        "cluster_gpus_installed": installed,
        "cluster_capex_usd": installed * capex,
        "cluster_it_mw": installed * kw / 1000,
        "cluster_facility_mw": installed * kw / 1000 * buyer["pue"],
        "cluster_mwh_per_year": installed * kw / 1000 * buyer["pue"] * 8760,
        "cluster_opex_usd_per_year": opex * 8760 * installed,
        "cluster_tco_usd_per_year": tco * 8760 * installed,
    }


def compare_columns(sc: Scenario, model: list[dict]) -> list[dict[str, object]]:
    """Expected Compare values per system column (the first column is the reference)."""
    ref = model[0]
    plain = not sc.overrides
    cols = []
    for k, m in enumerate(model):
        ratio = m["tco_usd_per_gpu_hour"] / ref["tco_usd_per_gpu_hour"]
        # on the delivered cost per kept token (availability x utilisation x goodput per column)
        speedup_needed = (m["delivered_usd_per_gpu_hour"] / m["goodput"]) / (
            ref["delivered_usd_per_gpu_hour"] / ref["goodput"]
        )
        breakeven = ref["mfu"] * speedup_needed * ref["peak_tflops"] / m["peak_tflops"]
        if plain:
            ratio = udfs.tco_ratio(sc.systems[0], sc.systems[k], sc.buyer)
            breakeven = udfs.tco_breakeven_mfu(
                ref["mfu"], sc.systems[0], sc.systems[k], sc.precision, sc.buyer
            )
        speedup = (m["tokens_per_gpu_second"] * m["goodput"]) / (
            ref["tokens_per_gpu_second"] * ref["goodput"]
        )
        cols.append(
            {
                "system": m["system"],
                "capex_per_gpu": m["capex_per_gpu"],
                "price_source": presets.price_source(presets.system(sc.systems[k]).entry("unit_all_in_usd")),
                "capex_ratio": m["capex_per_gpu"] / ref["capex_per_gpu"],
                "opex_usd_per_gpu_hour": m["opex_usd_per_gpu_hour"],
                "opex_ratio": m["opex_usd_per_gpu_hour"] / ref["opex_usd_per_gpu_hour"],
                "tco_usd_per_gpu_hour": m["tco_usd_per_gpu_hour"],
                "tco_ratio": ratio,
                "goodput": m["goodput"],
                "breakeven_speedup": speedup_needed,
                "peak_tflops": m["peak_tflops"],
                "peak_ratio": m["peak_tflops"] / ref["peak_tflops"],
                "mfu": m["mfu"],
                "mfu_source": _mfu_source(sc.systems[k], sc.precision, m["mfu"]),
                "speedup": speedup,
                "breakeven_mfu": breakeven,
                "usd_per_mtok": m["usd_per_mtok"],
                "cost_per_mtok_ratio": m["usd_per_mtok"] / ref["usd_per_mtok"],
                "cost_per_mtok_at_breakeven": ref["usd_per_mtok"],
                "joules_per_token": m["joules_per_token"],
                "household_years": m["household_years"],
                "verdict": "reference"
                if k == 0
                else (
                    "cheaper per token"
                    if m["usd_per_mtok"] < ref["usd_per_mtok"]
                    else "not cheaper per token"
                ),
                **_rent_or_buy(m, ref),
            }
        )
    return cols


def _mfu_source(system: str, precision: str, mfu: float) -> str:
    """The Compare row MFU source: the default MFU's evidence, or "entered on Inputs"."""
    default = presets.default_mfu(system, precision)
    return presets.mfu_source(default) if mfu == default.value else "entered on Inputs"


def _rent_or_buy(m: dict, ref: dict) -> dict[str, object]:
    """The Compare sheet's rent-or-buy rows, from udfs.decisions' functions."""
    from gputco.udfs import decisions

    rent, ref_rent = m["rent_usd_per_gpu_hour"], ref["rent_usd_per_gpu_hour"]
    has = isinstance(rent, float | int) and rent != ""
    return {
        "delivered_usd_per_gpu_hour": m["delivered_usd_per_gpu_hour"],
        "rent_usd_per_gpu_hour": rent if has else "none given",
        "breakeven_utilisation": m["breakeven_utilisation"],
        "cash_breakeven_utilisation": m["cash_breakeven_utilisation"],
        "rent_parity": decisions.tco_rent_parity(
            ref_rent, m["mfu"], ref["mfu"], m["peak_tflops"], ref["peak_tflops"], m["goodput"], ref["goodput"]
        )
        if isinstance(ref_rent, float | int) and ref_rent != ""
        else "needs rent_usd_per_gpu_hour",
        "usd_per_mtok_rented": udfs.tco_cost_per_mtok(
            rent, m["flops_per_token"], m["peak_tflops"], m["mfu"], m["goodput"]
        )
        if has
        else "needs rent_usd_per_gpu_hour",
        "usd_per_mtok_owned": m["usd_per_mtok"],
        "npv_usd_per_gpu": m["npv_usd_per_gpu"],
        "irr": m["irr"],
        **{
            k: m[k]
            for k in (
                "cluster_capex_usd",
                "cluster_it_mw",
                "cluster_npv_usd",
                "project_irr",
                "equity_irr",
                "min_dscr",
                "avg_dscr",
                "llcr",
                "plcr",
                "dscr_breach_periods",
                "debt_usd_per_gpu",
                "cluster_peak_funding_usd",
            )
        },
    }


def sweep_value(model_col: dict, mfu: float) -> float:
    """Cost per million tokens of one system column at ``mfu`` (the Compare sweep table)."""
    return udfs.tco_cost_per_mtok(
        model_col["tco_usd_per_gpu_hour"], model_col["flops_per_token"], model_col["peak_tflops"], mfu
    )


def _same(expected, actual) -> bool:
    if expected == "":  # an empty text result: openpyxl reads it back as an empty cell
        return actual in (None, "")
    if isinstance(expected, str) or isinstance(actual, str):
        return expected == actual
    return actual is not None and math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-12)


def keyed_rows(ws):
    """(row number, key) of every keyed row: column A holds a snake_case key."""
    for r in range(1, ws.max_row + 1):
        key = ws.cell(row=r, column=1).value
        if isinstance(key, str) and KEY.match(key) and key != "key":
            yield r, key


def check_model(ws, sc: Scenario) -> tuple[list[str], int]:
    """Walk every keyed row and system column of Model; return (mismatches, cells checked)."""
    cols = model_columns(sc)
    bad, n = [], 0
    for r, key in keyed_rows(ws):
        for k, col in enumerate(range(FIRST_SYSTEM_COL, FIRST_SYSTEM_COL + len(sc.systems))):
            n += 1
            if key not in cols[k]:
                bad.append(f"Model row {r}: key {key!r} has no udfs twin in template_expect")
                continue
            actual = ws.cell(row=r, column=col).value
            if not _same(cols[k][key], actual):
                bad.append(
                    f"Model!{ws.cell(row=r, column=col).coordinate} {key} "
                    f"({sc.systems[k]}): workbook {actual!r}, udfs {cols[k][key]!r}"
                )
    return bad, n


def check_compare(ws, sc: Scenario) -> tuple[list[str], int]:
    """Walk every keyed row and system column of Compare, the MFU sweep included."""
    model = model_columns(sc)
    cols = compare_columns(sc, model)
    bad, n, i = [], 0, 0
    for r, key in keyed_rows(ws):
        if key == "cost_per_mtok_at_mfu":
            mfu = SWEEP_START + i * SWEEP_STEP
            i += 1
            n += 1
            if not _same(mfu, ws.cell(row=r, column=2).value):
                bad.append(f"Compare!B{r}: MFU {ws.cell(row=r, column=2).value!r}, expected {mfu}")
        for k, col in enumerate(range(FIRST_SYSTEM_COL, FIRST_SYSTEM_COL + len(sc.systems))):
            n += 1
            if key == "cost_per_mtok_at_mfu":
                expected = sweep_value(model[k], mfu)
            elif key in cols[k]:
                expected = cols[k][key]
            else:
                bad.append(f"Compare row {r}: key {key!r} has no udfs twin in template_expect")
                continue
            actual = ws.cell(row=r, column=col).value
            if not _same(expected, actual):
                bad.append(
                    f"Compare!{ws.cell(row=r, column=col).coordinate} {key} "
                    f"({sc.systems[k]}): workbook {actual!r}, udfs {expected!r}"
                )
    if i == 0:
        bad.append("Compare: no MFU sweep rows")
    return bad, n


def benchmark_rows(
    buyer: str,
    article_usd: float = 1.42,
    bench_tokens: float = 300e9,
    kwh: float = udfs.KWH_PER_HOUSEHOLD_YEAR,
) -> dict[str, dict[str, object]]:
    """Expected Benchmarks values per run key and column key (published columns from runs.toml
    and the extra published figures the sheet lists)."""
    from gputco.workbook.finance.benchmarks import published

    out = {}
    b = presets.buyer(buyer)
    for key, run in presets.catalog("run").items():
        s, m, p = run.texts["system"], run.texts["model"], run.texts["precision"]
        mfu = run.value("mfu")
        fpt = udfs.tco_flops_per_token(m)
        peak = presets.peak_tflops(s, p)
        tps = udfs.tco_tokens_per_gpu_second(fpt, peak, mfu)
        tco = udfs.tco_gpu_hour(s, buyer)
        watts = udfs.tco_utility_watts_per_gpu(presets.system(s).value("it_kw_per_gpu"), b.value("pue"))
        jpt = udfs.tco_joules_per_token(watts, fpt, peak, mfu)
        hy = udfs.tco_household_years(bench_tokens * jpt, kwh)
        row = {
            "run": key,
            "label": run.label,
            "system": s,
            "model": m,
            "precision": p,
            "gpus": run.value("gpus"),
            "mfu": mfu,
            "peak_tflops": peak,
            "flops_per_token": fpt,
            "tokens_per_gpu_second": tps,
            "tco_usd_per_gpu_hour": tco,
            "cost_per_mtok": udfs.tco_cost_per_mtok(tco, fpt, peak, mfu),
            "cost_per_mtok_article": udfs.tco_cost_per_mtok(article_usd, fpt, peak, mfu),
            "utility_watts_per_gpu": watts,
            "joules_per_token": jpt,
            "household_years": hy,
            "tokens_per_household_year": bench_tokens / hy,
        }
        ours = {
            "tokens_per_gpu_second": tps,
            "usd_per_mtok": row["cost_per_mtok_article"],
            "joules_per_token": jpt,
            "household_years": hy,
            "tokens_per_household_year": row["tokens_per_household_year"],
        }
        for field_, (value, _source) in published(key).items():
            row[f"published_{field_}"] = value
            row[f"diff_{field_}"] = ours[field_] / value - 1
        out[key] = row
    return out


def check_benchmarks(ws, buyer: str) -> tuple[list[str], int]:
    """Walk every run row and column of Benchmarks against :func:`benchmark_rows`."""
    from gputco.workbook.finance.benchmarks import COLUMNS

    expected = benchmark_rows(buyer)
    # the table of extra published figures below also names runs: a run's row has its label too
    return _check_rows(
        ws, expected, COLUMNS, "runs", lambda r, run: ws.cell(row=r, column=2).value == expected[run]["label"]
    )


def _check_rows(ws, expected: dict[str, dict], columns, what: str, is_row=lambda r, key: True):
    """Walk the Benchmarks rows whose column A is a key of ``expected`` (and ``is_row(r, key)``),
    every column of ``columns`` against ``expected[key]`` (None: nothing published, the cell is
    empty); every key must have its row. Returns (the differences, the cells compared)."""
    bad, n, seen = [], 0, set()
    for r in range(1, ws.max_row + 1):
        key = ws.cell(row=r, column=1).value
        if key not in expected or not is_row(r, key):
            continue
        seen.add(key)
        for col, (field_, *_rest) in enumerate(columns, start=1):
            actual, want = ws.cell(row=r, column=col).value, expected[key].get(field_)
            n += 1
            if want is None:
                if actual is not None:
                    bad.append(f"Benchmarks row {r} {key} {field_}: {actual!r} where nothing was published")
            elif not _same(want, actual):
                bad.append(f"Benchmarks row {r} {key} {field_}: workbook {actual!r}, udfs {want!r}")
    if set(expected) - seen:
        bad.append(f"Benchmarks: {what} missing: {sorted(set(expected) - seen)}")
    return bad, n


def fact_rows(
    buyer: str,
    kwh: float = udfs.KWH_PER_HOUSEHOLD_YEAR,
    kg_co2_per_kwh: float = udfs.energy.KG_CO2_PER_KWH_US,
) -> dict[str, dict]:
    """Expected values of the Benchmarks block of published MoE training runs, per fact key and
    column key, from udfs/data/training_facts.toml and the udfs functions: what the developers
    published (tokens, GPU-hours, rate, cost) and what follows from it. Absent quantities: None."""
    out = {}
    b = presets.buyer(buyer)
    for key, fact in presets.catalog("training_fact").items():
        system, model = fact.texts["system"], fact.texts["model"]
        pub = {
            f: (e.value if (e := fact.entries.get(f)) is not None else None)
            for f in ("tokens", "gpu_hours", "usd_per_gpu_hour", "published_usd")
        }
        hours, tokens, rate = pub["gpu_hours"], pub["tokens"], pub["usd_per_gpu_hour"]
        watts = udfs.tco_utility_watts_per_gpu(presets.system(system).value("it_kw_per_gpu"), b.value("pue"))
        joules = hours * 3600.0 * watts
        tco = udfs.tco_gpu_hour(system, buyer)
        fpt = {c: udfs.tco_flops_per_token(model, None, c) for c in ("palm", "6n")}
        peak = {p: presets.peak_tflops(system, p) for p in ("fp8", "bf16")}
        tps = None if tokens is None else tokens / (hours * 3600.0)
        row = {
            "fact": key,
            "label": fact.label,
            "system": system,
            "model": model,
            **pub,
            "tokens_per_gpu_second": tps,
            "flops_palm": fpt["palm"],
            "flops_6n": fpt["6n"],
            "peak_fp8": peak["fp8"],
            "peak_bf16": peak["bf16"],
            "usd_at_published_rate": None if rate is None else hours * rate,
            "tco_usd_per_gpu_hour": tco,
            "usd_at_tco": hours * tco,
            "utility_watts_per_gpu": watts,
            "joules_per_gpu_hour": watts * 3600.0,
            "joules_per_token": None if tokens is None else joules / tokens,
            "household_years": udfs.tco_household_years(joules, kwh),
            "co2_tonnes": udfs.tco_co2_tonnes(joules, kg_co2_per_kwh),
        }
        for c, suffix in (("palm", ""), ("6n", "_6n")):
            for p in ("fp8", "bf16"):
                row[f"mfu_{p}{suffix}"] = None if tps is None else tps * fpt[c] / (peak[p] * 1e12)
        row["diff_published_usd"] = (
            None
            if None in (rate, pub["published_usd"])
            else row["usd_at_published_rate"] / pub["published_usd"] - 1
        )
        out[key] = row
    return out


def check_facts(ws, buyer: str) -> tuple[list[str], int]:
    """Walk every row and column of the Benchmarks block of published MoE training runs."""
    from gputco.workbook.finance.bench_facts import COLUMNS

    expected = fact_rows(buyer)
    assert all(set(row) >= {key for key, *_ in COLUMNS} for row in expected.values())
    return _check_rows(ws, expected, COLUMNS, "published training runs")
