"""LET: names for intermediate results inside one formula (Excel 365).

``LET(name1, value1, [name2, value2, ...], calculation)`` is resolved by the parser
(:meth:`..parse._Parser.let`): each name in the later arguments stands for its value's tree, so
what reaches the evaluator is ``LET(calculation)``, and this function hands the calculation's
result on unchanged (references stay references: ``LET(r, A1:A3, SUM(r))``). A LET without a
calculation is #VALUE!. LibreOffice 7.4 has no LET; the oracle is Microsoft's LET page (cited in
tests/test_recalc_arrays.py).
"""

from __future__ import annotations

from ._args import Spec


def _let(calculation):
    return calculation


FUNCTIONS = {
    "LET": Spec(_let, 1, 1, "r"),
}
