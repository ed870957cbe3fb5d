"""The differential fuzzer's seeded subset: the engine against LibreOffice's recorded answers.

tests/difffuzz.py generates formulas over the engine's whole function table with typed argument
mixes; LibreOffice's answers to the seeded subset (3,000 formulas, one workbook, one LibreOffice
run) are recorded in tests/data/fuzz_lo.json, so the comparison runs, and fails, everywhere:

- no formula crashes or is refused by the engine;
- every disagreement is explained by a rule of difffuzz.RULES (tests/data/difffuzz_rules.toml) (a documented Excel-vs-LibreOffice
  difference, citing Microsoft's page, or a function LibreOffice lacks) or is one of the
  recording's "undecided" cases, with the engine's answer pinned: a new disagreement, or a
  changed answer on an undecided one, fails (after an engine fix, ``GPUTCO_FUZZ_RELIST=1``
  rewrites the list from the engine's answers; the diff shows what moved);
- where LibreOffice is installed, its live answers still equal the recording
  (``GPUTCO_LO_REFRESH=1`` refreshes it).

The long run is ``python benchmarks/fuzz.py --differential 100000``.
"""

from __future__ import annotations

import os

import difffuzz as d
import pytest
from lo import requires_soffice

RELIST = os.environ.get("GPUTCO_FUZZ_RELIST") == "1"

#: the seeded run's counts as measured on the recording of 2026-12-04 (LibreOffice 7.4.7.2), the
#: floors of the comparison: one formula fewer agreeing, or one fewer explained by a source
#: (Microsoft's page, an Excel-saved file, a function LibreOffice lacks) instead of agreeing,
#: fails; a formula moved from a sourced rule to an undecided one or to none fails too
AGREE = 2020
SOURCED = 779  # "excel vs libreoffice", "excel-saved file", "libreoffice lacks"
SOURCED_CLASSES = ("excel vs libreoffice", "excel-saved file", "libreoffice lacks")


@pytest.fixture(scope="module")
def recording():
    return d.load_recording()


@pytest.fixture(scope="module")
def engine(recording, tmp_path_factory):
    formulas = [f for f, _ in recording["cases"]]
    values, _ = d.run_batch(formulas, tmp_path_factory.mktemp("fuzz"), with_libreoffice=False)
    return values


def test_the_recording_is_of_the_generator_s_formulas(recording):
    assert recording["seed"] == d.SEED and recording["count"] == d.COUNT
    assert [f for f, _ in recording["cases"]] == d.generate(d.SEED, d.COUNT), (
        f"the generator changed: refresh the recording ({d.REFRESH_COMMAND})"
    )


def test_no_formula_crashes_or_is_refused(recording, engine):
    """No formula crashes or is refused, except LAMBDAs whose parameters are not names: the
    generator fills every argument with a typed value, and such a LAMBDA is no formula Excel's
    grammar knows (its parameters are names, support.microsoft.com "LAMBDA function"); the
    parser refuses it naming the rule."""
    formulas = [f for f, _ in recording["cases"]]
    refused = [
        (f, v)
        for f, v in zip(formulas, engine, strict=True)
        if isinstance(v, str)
        and v.startswith("<refused")
        and not (f.startswith("_xlfn.LAMBDA(") and "FormulaSyntaxError" in v)
    ]
    assert refused == []


def test_every_disagreement_is_explained_or_listed_undecided(recording, engine):
    formulas = [f for f, _ in recording["cases"]]
    lo = [v for _, v in recording["cases"]]
    outcome = d.compare(formulas, engine, lo)
    if RELIST:
        d.relist(outcome.bugs)
        return
    listed = {(f, repr(e), repr(v)) for f, e, v in recording["undecided"]}
    now = {(f, repr(e), repr(v)) for f, e, v in outcome.bugs}
    new = sorted(now - listed)
    gone = sorted(listed - now)
    assert not new and not gone, (
        f"{len(new)} new disagreement(s) no rule explains (first: {new[:5]}); "
        f"{len(gone)} listed undecided one(s) changed (first: {gone[:5]}); "
        f"after checking them: {d.RELIST_COMMAND}"
    )
    assert outcome.agree + sum(outcome.classified.values()) + len(outcome.bugs) == outcome.formulas
    # the share agreeing, and explained by a source, must stay what it is (floors as measured)
    sourced = sum(k for (cls, _), k in outcome.classified.items() if cls in SOURCED_CLASSES)
    assert outcome.agree >= AGREE, f"{outcome.agree} agree, {AGREE} measured"
    assert outcome.agree + sourced >= AGREE + SOURCED, (
        f"{outcome.agree} agree and {sourced} explained by a source, {AGREE} and {SOURCED} measured"
    )


def test_agreement_is_real(recording, engine):
    """The comparison can fail: a wrong answer on an agreeing formula is caught."""
    formulas = [f for f, _ in recording["cases"]]
    lo = [v for _, v in recording["cases"]]
    k = next(
        i for i, (e, v) in enumerate(zip(engine, lo, strict=True)) if d.agree(e, v) and isinstance(v, float)
    )
    broken = list(engine)
    broken[k] = broken[k] + 1.0
    assert len(d.compare(formulas, broken, lo).bugs) + sum(
        d.compare(formulas, broken, lo).classified.values()
    ) > (len(d.compare(formulas, engine, lo).bugs) + sum(d.compare(formulas, engine, lo).classified.values()))


@requires_soffice
def test_live_libreoffice_equals_the_recording(recording, tmp_path):
    formulas = d.generate(d.SEED, d.COUNT)
    engine, lo = d.run_batch(formulas, tmp_path, with_libreoffice=True)
    if os.environ.get("GPUTCO_LO_REFRESH") == "1":
        from lo_record import version

        d.save_recording(formulas, lo, version(), d.compare(formulas, engine, lo).bugs)
        return
    recorded = [v for _, v in recording["cases"]]
    differ = [(f, r, v) for f, r, v in zip(formulas, recorded, lo, strict=True) if not d.agree(r, v)]
    assert differ == [], f"LibreOffice's answers changed: refresh ({d.REFRESH_COMMAND}); first: {differ[:5]}"


NUM, VALUE = d.Err("#NUM!"), d.Err("#VALUE!")


def _rule(what: str) -> d.Rule:
    return next(r for r in d.RULES if r.what.startswith(what))


@pytest.mark.parametrize(
    ("what", "formula", "engine", "lo", "explained"),
    [
        ("BITAND, BITOR", "_xlfn.BITAND(2.5,1E+10)", NUM, 0.0, True),
        ("BITAND, BITOR", "_xlfn.BITLSHIFT(7,100)", NUM, 8.87355420159761e30, True),
        ("BITAND, BITOR", "_xlfn.BITAND(6,3)", NUM, 2.0, False),
        ("BITAND, BITOR", "_xlfn.BITLSHIFT(7,3)", NUM, 56.0, False),
        ("COT, CSC, SEC", "_xlfn.COT(1E+10)", NUM, -1.79099247546761, True),
        ("COT, CSC, SEC", "_xlfn.COT(100)", NUM, -1.70, False),
        ("GEOMEAN or HARMEAN", "GEOMEAN(10,0)", NUM, 0.0, True),
        ("GEOMEAN or HARMEAN", "GEOMEAN(10,2)", NUM, 0.0, False),
        ("FVSCHEDULE with a text", 'FVSCHEDULE(1,"$5")', VALUE, 6.0, True),
        ("FVSCHEDULE with a text", "FVSCHEDULE(1,In!B1:B6)", VALUE, 5040.0, False),
        ("FACTDOUBLE(-1)", "FACTDOUBLE(-1)", 1.0, VALUE, True),
        ("FACTDOUBLE(-1)", "FACTDOUBLE(-3)", 1.0, VALUE, False),
        ("FIXED with a text no_commas", 'FIXED(,10,"0")', VALUE, "0.0000000000", True),
        ("FIXED with a text no_commas", 'FIXED(,10,"TRUE")', VALUE, "0.0000000000", False),
        ("PERMUT of a number", 'PERMUT("10%",1E-9)', NUM, 1.0, True),
        ("PERMUT of a number", "PERMUT(5,2)", NUM, 20.0, False),
        ("a date serial before 1900-03-01", "ACCRINTM(10,In!D6,7,100)", 86840.83, 86842.78, True),
        ("a date serial before 1900-03-01", "ACCRINTM(100,In!D6,7,100)", 86840.83, 86842.78, False),
        ("NUMBERVALUE with a separator of several", "_xlfn.NUMBERVALUE(100,45322)", 100.0, VALUE, True),
        ("NUMBERVALUE with a separator of several", '_xlfn.NUMBERVALUE(100,".")', 100.0, VALUE, False),
        ("NUMBERVALUE of a text holding a period", '_xlfn.NUMBERVALUE(-2.5,"?pple")', -2.5, VALUE, True),
        ("NUMBERVALUE of a text holding a period", '_xlfn.NUMBERVALUE(-2,"?pple")', -2.0, VALUE, False),
        ("GCD or LCM of a blank cell", 'LCM(In!A5,"3")', VALUE, 0.0, True),
        ("GCD or LCM of a blank cell", 'LCM(In!A1,"3")', VALUE, 0.0, False),
    ],
)
def test_the_rules_of_the_functions_of_2026_12_04_are_narrow(what, formula, engine, lo, explained):
    """Each rule explains its case and not the same function outside the condition its source
    names (an integer BITAND, COT of a small angle, GEOMEAN of positive numbers, FIXED's "TRUE")."""
    rule = _rule(what)
    got = rule.test(formula, engine, lo, 1) if rule.by_row else rule.test(formula, engine, lo)
    assert bool(got) is explained


def test_the_rules_page_is_what_the_generator_writes():
    # on failure: python tests/difffuzz.py --write-docs, and commit docs/recalc-excel-rules.md
    assert d.RULES_PAGE.read_text(encoding="utf-8") == d.rules_page()
    assert d.render_rules().count("\n| ") == len(d.RULES) + 1  # the header and one row per rule


def test_a_rule_without_its_test_or_a_test_without_its_rule_is_refused():
    first, *_ = d.RULE_TESTS
    with pytest.raises(ValueError, match=f"without a test in RULE_TESTS \\['{first}'\\]"):
        d.load_rules({k: t for k, t in d.RULE_TESTS.items() if k != first})
    with pytest.raises(ValueError, match=r"tests without a rule \['no-such-rule'\]"):
        d.load_rules({**d.RULE_TESTS, "no-such-rule": lambda f, e, lo: False})
    assert [r.what for r in d.load_rules(d.RULE_TESTS)] == [r.what for r in d.RULES]
