"""Every Python example in README.md and docs/*.md runs, and prints what the page says it prints.

The pages' ```python blocks are doctests (``>>>`` lines with their output); a block without
``>>>`` would show values nobody checks, so it fails here. Every relative link resolves.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [
    (page, k, block)
    for page in PAGES
    for k, block in enumerate(
        re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M), start=1
    )
]


def test_the_pages_have_python_examples():
    assert len(BLOCKS) >= 9  # the measured count (2026-12-06)
    assert any(page == README for page, _, _ in BLOCKS)


def test_the_readme_is_a_front_door():
    """At most 300 lines, and every link to a page of the repository resolves."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which does not exist"


@pytest.mark.parametrize("where", [f"{page.name}:{k}" for page, k, _ in BLOCKS])
def test_python_block_runs_with_its_printed_values(where):
    page, k, block = next(b for b in BLOCKS if f"{b[0].name}:{b[1]}" == where)
    if ">>> " not in block:  # a whole test file quoted: it runs as a test of its own
        quoted = any(
            block.strip() in f.read_text(encoding="utf-8") for f in (ROOT / "tests").glob("test_*.py")
        )
        assert quoted, f"{page.name} Python block {k} has no >>> example to check, nor is it a test file"
        return
    test = doctest.DocTestParser().get_doctest(block, {}, f"{page.name} block {k}", str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=lambda text: pytest.fail(text))
    assert result.failed == 0 and result.attempted >= 3


def test_the_readmes_counts_are_the_registrys():
    """The README's count of TCO_ functions is the registry's (udfs/registry.py), not a word that
    drifts ("thirty-odd" stood where there were 43)."""
    from gputco.udfs.registry import SPECS

    text = README.read_text(encoding="utf-8")
    counts = re.findall(r"(\d+) `=TCO_\.\.\.` functions", text)
    assert counts == [str(len(SPECS))], (counts, len(SPECS))
