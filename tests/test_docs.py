"""The UDF reference page (docs/udfs.md) is generated from the registry and checked in up to date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from installed import editable_checkout

from gputco import udfs
from gputco.addin import cli
from gputco.addin.docs import PAGE, render

CHECKED_IN = Path(__file__).resolve().parents[1] / "docs" / "udfs.md"


def test_the_checked_in_page_is_what_the_generator_writes():
    # on failure: run `python -m gputco.addin.docs` and commit docs/udfs.md
    if editable_checkout() == CHECKED_IN.parents[1]:  # pip recorded an editable install of this checkout
        assert PAGE == CHECKED_IN  # its default output is the checked-in page
    assert CHECKED_IN.read_text(encoding="utf-8") == render()


def test_every_udf_has_a_section_with_arguments_units_and_an_example():
    page = render()
    for name, udf in udfs.UDFS.items():
        spec = udf.udf_spec
        section = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"`={spec.signature}`" in section
        assert spec.summary in section
        for arg in spec.args:
            assert f"| `{arg.name}` | {arg.unit or '-'} |" in section
        assert f"Example: `{spec.example_formula}`" in section
        assert f"gputco.udfs.{spec.plain.__name__}" in section
        if spec.unit:
            assert f"({spec.unit})" in section


def test_example_values_are_computed():
    page = render()
    assert '`=TCO_GPU_HOUR("H100_HGX")` gives `1.41994`' in page
    assert "`=TCO_COST_PER_MTOK(1.42, 1.07899E+12, 1978.9, 0.395)` gives `0.54448`" in page


def test_cli_docs_prints_and_writes_the_page(tmp_path, capsys):
    assert cli.main(["docs"]) == 0
    assert capsys.readouterr().out == render()
    out = tmp_path / "udfs.md"
    assert cli.main(["docs", "-o", str(out)]) == 0
    assert out.read_bytes() == render().encode("utf-8")
    assert cli.main(["docs", "-o", str(out)]) == cli.EXIT_USAGE  # exists: refused
    assert "use --force" in capsys.readouterr().err
    out.write_text("old")
    assert cli.main(["docs", "-o", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8") == render()


def test_python_m_addin_docs_writes_a_file(tmp_path):
    out = tmp_path / "page.md"
    subprocess.run(
        [sys.executable, "-m", "gputco.addin.docs", "-o", str(out)],
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.read_text(encoding="utf-8") == render()
