"""The kernel of :func:`gputco.udfs.project.project_flows`: a project's flows in each
run of equal operating periods, one row (project) at a time.

:func:`gputco.udfs.project._flows_of_one_build` finds the runs (a period every row's terms make
equal to the one before joins its run) and writes the capex and the build; this kernel walks the
operating periods 1..kmax in the order of time (each row's rent falling and opex rising at each
new year of operation) and writes every row's flows in each period that starts a run, the same
operations in the same order as the formulas of docs/project.md, so the flows are bit for bit
those of the period-by-period definition. Run as the flow kernels are: as Python for small
calls, compiled by numba for batch-sized ones, to the same bits (:mod:`gputco.udfs._jit`).
"""

from __future__ import annotations

from ._flowkernels import _kernel


@_kernel
def operating_runs(
    run_of,
    ppy,
    kmin,
    max_life,
    has_contract,
    powered,
    extra,
    debt,
    table,
    life,
    tenor,
    sold_base0,
    opex_base0,
    power_var0,
    fixed_base0,
    decline,
    curved,
    rent_factor,
    escalation,
    u,
    a,
    tax,
    contracted_fraction,
    contract0,
    contract_escalation,
    contracted_periods,
    ramp_months,
    ramp_end,
    residual,
    payment,
    dep_per,
    net,
    revenue,
    cfads,
    service,
    equity,
    power_use,
    lines,
):
    """Per operating period k = 1 .. len(run_of) - 1 that starts a run and row i (``run_of[k]``:
    the run's index, -1 for a period inside a run), that run's flows: ``net`` (project),
    ``revenue`` (sold at the merchant rent), with ``debt`` ``cfads``, ``service`` and ``equity``
    (but the loan interest's geometric tax shield), with ``powered`` ``power_use``, with
    ``table`` the lines (revenue, opex, depreciation, tax, residual: ``lines`` (5, runs, rows)).
    ``dep_per`` (tax years, rows): the depreciation per period of each tax year. With ``curved``
    a row whose ``rent_factor`` (rows, factors) is not NaN sells in year y at its rent x factor
    min(y, last) (a rent curve) instead of falling by ``decline`` each year. The ``contract``
    rent (USD a period, x the contracted fraction) rises by ``contract_escalation`` (1 + the
    escalation a year) each new year of operation, as the opex by ``escalation``."""
    per = 12 // ppy
    kmax = run_of.size - 1
    n = sold_base0.size
    # each row's rent and costs of the current year of operation (period by period in the order of
    # time, every row at once: the runs' rows are written along the rows, in order)
    sold_base, opex_base = sold_base0.copy(), opex_base0.copy()
    power_var, fixed_base = power_var0.copy(), fixed_base0.copy()
    contract = contract0.copy()  # the contract rent of the year: x (1 + escalation) each new year
    last = rent_factor.shape[1] - 1
    if curved:
        for i in range(n):
            if rent_factor[i, 0] == rent_factor[i, 0]:  # not NaN: the row has a curve
                sold_base[i] = sold_base0[i] * rent_factor[i, 0]
    for k in range(1, kmax + 1):
        if k > 1 and (k - 1) % ppy == 0:  # a new year of operation
            for i in range(n):
                if curved and rent_factor[i, 0] == rent_factor[i, 0]:
                    sold_base[i] = sold_base0[i] * rent_factor[i, min((k - 1) // ppy, last)]
                else:
                    sold_base[i] = sold_base[i] * decline[i]
                opex_base[i] = opex_base[i] * escalation[i]
                power_var[i] = power_var[i] * escalation[i]
                fixed_base[i] = fixed_base[i] * escalation[i]
                if has_contract:
                    contract[i] = contract[i] * contract_escalation[i]
        r = run_of[k]
        if r < 0:
            continue
        ramping = (k - 1) * per + 0.5 < ramp_end
        everyone = k <= kmin
        year = (k - 1) // ppy
        for i in range(n):
            ramp = 1.0
            if ramping:  # the mean of min(1, (m - 1/2) / ramp) over the period's months
                total = 0.0
                for m in range((k - 1) * per + 1, k * per + 1):
                    total = total + (min(1.0, (m - 0.5) / ramp_months[i]) if ramp_months[i] > 0 else 1.0)
                ramp = total / per
            live = 1.0 if everyone or k <= life[i] else 0.0
            if has_contract:
                under = min(max(contracted_periods[i] - (k - 1), 0.0), 1.0)
                sold = sold_base[i] * ramp * (1.0 - contracted_fraction[i] * under)
                rev = sold + contract[i] * under
            else:
                sold = sold_base[i] * ramp if ramping else sold_base[i]
                rev = sold
            opex = opex_base[i] + power_var[i] * (1.0 - u[i] * a[i] * ramp) if powered else opex_base[i]
            if extra:
                opex = opex + fixed_base[i]
            if not everyone:
                rev, sold, opex = rev * live, sold * live, opex * live
            dep = (dep_per[year, i] if everyone else dep_per[year, i] * live) if year < max_life else 0.0
            f = rev + opex
            at_end = 1.0 if k == life[i] else 0.0
            if k >= kmin:
                f = f + residual[i] * at_end
            # tax = -tax rate x (revenue + opex - depreciation + residual), as (dep - f) x tax
            taxed = (dep - f) * tax[i]
            value = taxed + f
            net[r, i] = value
            revenue[r, i] = sold
            if powered:
                power_use[r, i] = power_var[i] * a[i] * ramp * live
            if debt:  # the payment, and the tax shield of its interest but for the geometric term
                paying = k <= tenor[i] and live > 0.0
                paid = payment[i] if paying else 0.0
                cfads[r, i] = rev + opex + taxed
                service[r, i] = paid
                equity[r, i] = value - paid + (tax[i] * payment[i] if paying else 0.0)
            if table:
                lines[0, r, i] = rev
                lines[1, r, i] = opex
                lines[2, r, i] = dep
                lines[3, r, i] = taxed
                lines[4, r, i] = residual[i] * at_end


@_kernel
def waterfall_rows(
    cfads,
    service,
    interest,
    closing,
    so_far,
    b,
    balance,
    i,
    tenor,
    end,
    reserve,
    sweep,
    lockup,
    paid_service,
    paid_interest,
    owed_end,
    reserved,
    prepaid_all,
):
    """The debt's waterfall (docs/project.md "Reserve, sweep, lock-up and fee"; the period lines
    ``service_ahead`` .. ``owed_end``), one row at a time, periods in turn: what
    :func:`gputco.udfs.project._waterfall` asks for, written into ``paid_service``,
    ``paid_interest``, ``owed_end`` (the schedule's copies), ``reserved`` and ``prepaid_all``.
    ``so_far``: the scheduled service summed over periods 0..p (read where a row has a reserve);
    ``i`` (periods, rows): the debt's rate of each period (floating debt: of the period's year)."""
    periods, m = cfads.shape
    for r in range(m):
        pre = sweep[r] > 0.0 or lockup[r] > 0.0
        n, last, stop = reserve[r], tenor[r], end[r]
        held = 0.0
        if n > 0 and last > 0:
            held = so_far[min(b + n, stop), r] - so_far[b, r]
        reserved[b, r] = -held
        owed = balance[r]
        for step in range(1, last + 1):
            p = b + step
            if p >= periods:
                break
            scheduled = service[p, r] - interest[p, r]
            if pre:
                due = owed * i[p, r]
                # at most what is owed; all of it at maturity or where the schedule is repaid
                principal = owed if step == last or closing[p, r] == 0.0 else min(scheduled, owed)
                paid = due + principal
                left = owed - principal
            else:
                due, paid, left = interest[p, r], service[p, r], closing[p, r]
            cash = cfads[p, r] - paid
            if n > 0:
                target = 0.0
                if step < last and left > 0.0:
                    target = so_far[min(p + n, stop), r] - so_far[p, r]
                draw = min(held, max(0.0, -cash))
                funded = min(max(0.0, target - (held - draw)), max(0.0, cash))
                released = max(0.0, held - draw - target)
                held = held + funded - draw - released
                free = max(0.0, cash + draw - funded)
                reserved[p, r] = -funded + draw + released
            else:
                free = max(0.0, cash)
            prepaid = 0.0
            if pre:
                locked = lockup[r] > 0.0 and paid > 0.0 and cfads[p, r] < lockup[r] * paid
                prepaid = min(left, free if locked else sweep[r] * free)
                owed = left - prepaid
                owed_end[p, r] = owed
                paid_interest[p, r] = due
            paid_service[p, r] = paid
            prepaid_all[p, r] = prepaid
