"""xlwings's decorators applied to the registry's specs (used by :mod:`gputco.addin.xlwings_udfs` and the
VBA export, :mod:`gputco.addin.vba`)."""

from collections.abc import Callable

import xlwings as xw

from gputco.udfs.registry import SPECS, make_udf


def decorate(udf: Callable, func: Callable = xw.func, arg: Callable = xw.arg) -> Callable:
    """Apply the xlwings decorators, as ``@xw.func(category=...)`` above ``@xw.arg(...)`` lines.

    ``ndim=2`` keeps a column a column (xlwings would otherwise flatten a 1xN row and an Nx1 column
    alike), and ``err_to_str=True`` passes input cell errors as "#N/A" texts instead of empty cells.
    ``func``/``arg`` are xlwings's own decorators; ``gputco.addin.vba`` passes the Windows versions.
    """
    spec = udf.udf_spec
    for a in reversed(spec.args):
        udf = arg(a.name, doc=a.wizard_text, ndim=2, err_to_str=True)(udf)
    return func(category=spec.category)(udf)  # last: xw.arg resets the category


def build(func: Callable = xw.func, arg: Callable = xw.arg) -> dict[str, Callable]:
    """Fresh decorated callables for every registry spec, in catalog order."""
    return {name: decorate(make_udf(spec), func, arg) for name, spec in SPECS.items()}
