"""The commented example SPEC that ``gputco scenarios --example`` prints.

A test parses it and writes its workbook end to end (tests/test_scenarios.py), so it stays valid.

>>> import tomllib
>>> sorted(tomllib.loads(EXAMPLE))
['base', 'fixed', 'grid', 'monte_carlo', 'sensitivity']
"""

#: the commented example printed by ``gputco scenarios --example`` (a test runs it end to end)
EXAMPLE = """\
# gputco scenarios SPEC (TOML). Run: gputco scenarios this-file.toml -o scenarios.xlsx
# Keys are the scenario inputs (docs/scenarios.md): system, buyer, model, precision,
# convention, mfu, tokens, gpus, seq_len, capex_per_gpu, cost_of_capital, life_years,
# residual_fraction, it_kw_per_gpu, pue, usd_per_kwh, colo_usd_per_kw_month,
# other_usd_per_gpu_hour, peak_tflops, kwh_per_household_year, availability, utilisation, goodput,
# rent_usd_per_gpu_hour, tax_rate, depreciation_years, rent_decline_per_year,
# opex_escalation_per_year, serve_tokens_per_gpu_second, kg_co2_per_kwh. Rates are decimals
# (0.13, not 13). The cluster as a financed project (docs/project.md) takes periods,
# build_months, ramp_months, idle_power_fraction, the opex lines, contracts, debt_fraction,
# debt_rate, debt_years, cost_of_equity, depreciation_method and bonus_depreciation_fraction,
# e.g. in [fixed]: periods = "month", build_months = 12, debt_fraction = 0.6 (then every row
# carries the project's periods; by month at most 50,000 rows x periods, docs/scenarios.md).

# Every combination of these lists is one scenario (one row): 2 x 3 x 5 x 3 = 90 rows.
# The first key varies slowest. At most 100,000 scenarios (gputco batch runs millions).
# zip pairs lists that vary together: each system with its own rent (SemiAnalysis AI Cloud TCO
# Model, July 2026, 3-year commitment market rent, USD per GPU-hour; udfs/data/rents.toml).
[grid]
system = ["H100_HGX", "GB200_NVL72"]
rent_usd_per_gpu_hour = [2.00, 4.00]
zip = [["system", "rent_usd_per_gpu_hour"]]
buyer = ["hyperscaler", "neocloud_giant", "emerging_neocloud"]
mfu = [0.35, 0.40, 0.45, 0.50, 0.55]
usd_per_kwh = [0.06, 0.087, 0.12]      # USD per kWh

# The same for every scenario. Inputs in neither table take their default (model gpt3_175b,
# bf16, palm, 300B tokens, 128 GPUs) or the presets of each row's system and buyer type.
[fixed]
model = "gpt3_175b"
precision = "bf16"
tokens = 300e9
gpus = 128

# The base scenario of the Sensitivity and Monte Carlo sheets. Default: the first value of each
# grid list plus [fixed].
[base]
system = "GB200_NVL72"
rent_usd_per_gpu_hour = 4.00
mfu = 0.45
usd_per_kwh = 0.087

# Tornado: each input moved down and up by its swing (a fraction of the base value; PUE moves
# its overhead above 1). swing is one number, or a table such as { pue = 0.1, mfu = 0.2 }.
[sensitivity]
inputs = ["mfu", "usd_per_kwh", "cost_of_capital", "life_years", "pue", "capex_per_gpu"]
swing = 0.2

# Monte Carlo: draws around the base scenario, reproducible for a given seed.
# uniform(low, high), normal(mean, sd), triangular(low, mode, high), lognormal(median, sigma:
# the sd of ln(value)); normal and lognormal take optional min/max bounds (draws outside are
# drawn again).
[monte_carlo]
draws = 2000
seed = 20250820
mfu = { dist = "triangular", low = 0.35, mode = 0.45, high = 0.55 }
usd_per_kwh = { dist = "uniform", low = 0.06, high = 0.12 }
cost_of_capital = { dist = "normal", mean = 0.13, sd = 0.02, min = 0.05 }
capex_per_gpu = { dist = "lognormal", median = 54167, sigma = 0.1 }
"""
