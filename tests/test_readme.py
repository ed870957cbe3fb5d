"""Every Python example in README.md runs, and prints what the README says it prints.

The README's ```python blocks are doctests (``>>>`` lines with their output); a block without
``>>>`` would show values nobody checks, so it fails here.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs_with_its_printed_values(index):
    block = BLOCKS[index]
    assert ">>> " in block, f"README Python block {index + 1} has no >>> example to check"
    test = doctest.DocTestParser().get_doctest(block, {}, f"README block {index + 1}", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=lambda text: pytest.fail(text))
    assert result.failed == 0 and result.attempted >= 3
