"""The examples in gputco's docstrings run as written, against the installed package.

The doctests are collected here rather than by ``pytest --doctest-modules`` over the checkout's
folders: that would import ``udfs`` or ``workbook`` from the repository root, a second copy beside
the installed ``gputco`` (and a name that is not installed at all).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import pytest

import gputco.addin
import gputco.udfs
import gputco.workbook


def _modules() -> list[str]:
    names = []
    for package in (gputco.udfs, gputco.workbook, gputco.addin):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return names


def _with_examples(name: str) -> bool:
    module = importlib.import_module(name)
    return any(test.examples for test in doctest.DocTestFinder().find(module))


class _Checker(doctest.OutputChecker):
    """Also accepts a float written to fewer places than it has (``0.5445`` for 0.54448...),
    to within one unit of the last place written, as pytest's NUMBER option does."""

    FLOAT = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")

    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags):
            return True
        wants, gots = self.FLOAT.findall(want), self.FLOAT.findall(got)
        if not wants or len(wants) != len(gots):
            return False
        for w, g in zip(wants, gots, strict=True):
            places = len(re.split("[eE]", w)[0].split(".")[1])
            scale = 10.0 ** int(re.split("[eE]", w)[1]) if re.search("[eE]", w) else 1.0
            if abs(float(w) - float(g)) > 10.0**-places * scale * (1 + 1e-9):
                return False
        return super().check_output(self.FLOAT.sub("0", want), self.FLOAT.sub("0", got), optionflags)


MODULES = [name for name in _modules() if _with_examples(name)]


def test_modules_with_examples_are_found():
    """The walk reaches the modules we know hold examples (a walk that finds none passes nothing)."""
    assert {"gputco.udfs", "gputco.udfs.chain", "gputco.workbook.recalc.formula.parse"} <= set(MODULES)
    assert len(MODULES) >= 64  # the measured count (2026-12-06)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    runner = doctest.DocTestRunner(checker=_Checker(), optionflags=flags)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
