"""The xlwings_udfs VBA module, written by xlwings's own generator (``gputco addin vba``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from gputco import udfs
from gputco.addin import cli
from gputco.addin.vba import vba_module
from gputco.addin.xlwings_conf import UDF_MODULE

# VBA keywords that cannot be argument names (Visual Basic for Applications language reference)
VBA_KEYWORDS = {
    "and",
    "as",
    "boolean",
    "byref",
    "byte",
    "byval",
    "call",
    "case",
    "const",
    "currency",
    "date",
    "declare",
    "dim",
    "do",
    "double",
    "each",
    "else",
    "elseif",
    "empty",
    "end",
    "enum",
    "erase",
    "error",
    "event",
    "exit",
    "false",
    "for",
    "friend",
    "function",
    "get",
    "global",
    "gosub",
    "goto",
    "if",
    "implements",
    "in",
    "integer",
    "is",
    "let",
    "lib",
    "long",
    "loop",
    "me",
    "mod",
    "new",
    "next",
    "not",
    "nothing",
    "null",
    "on",
    "optional",
    "or",
    "paramarray",
    "preserve",
    "private",
    "public",
    "raiseevent",
    "redim",
    "rem",
    "resume",
    "return",
    "select",
    "set",
    "single",
    "static",
    "stop",
    "string",
    "sub",
    "then",
    "to",
    "true",
    "type",
    "typeof",
    "until",
    "variant",
    "wend",
    "while",
    "with",
    "withevents",
    "xor",
}


def test_one_wrapper_per_udf_with_its_arguments():
    raw = vba_module()
    assert raw.startswith('Attribute VB_Name = "xlwings_udfs"\n')
    # xlwings's VBAWriter breaks a line past its width with VBA's line continuation, " _" at the
    # end and the rest on the next line (the project functions' 43 arguments); VBA allows 24
    # continuations in one logical line (Microsoft, "Too many line continuations")
    assert max(line.count(" _\n") for line in re.split(r"(?<! _)\n", raw)) <= 24
    text = re.sub(r" _\n\s*", " ", raw)
    functions = re.findall(r"^Function (\w+)\((.*)\)$", text, flags=re.MULTILINE)
    assert sorted(name for name, _ in functions) == sorted(udfs.UDFS)
    for name, params in functions:
        spec = udfs.UDFS[name].udf_spec
        expected = ", ".join(("Optional " if a.optional else "") + a.name for a in spec.args)
        assert params == expected
        call = f'XLPy.CallUDF("{UDF_MODULE}", "{name}", Array({", ".join(a.name for a in spec.args)})'
        assert f"{name} = {call}, ThisWorkbook, Application.Caller)" in text
    # VBA's physical line limit, 1023 characters ("Line too long"); xlwings's VBAWriter breaks
    # lines at 1024 with the line end
    assert max(len(line) for line in raw.splitlines()) <= 1023
    assert not {a.name.lower() for u in udfs.UDFS.values() for a in u.udf_spec.args} & VBA_KEYWORDS
    assert "pythoncom" not in sys.modules and "xlwings.udfs" not in sys.modules


def test_the_addin_variant_passes_the_active_workbook():
    text = re.sub(r" _\n\s*", " ", vba_module(addin=True))  # a continued line read as one (test above)
    assert "ThisWorkbook" not in text
    assert text.count("ActiveWorkbook, Application.Caller)") == len(udfs.UDFS)


def test_cli_writes_the_bas_with_windows_line_ends(tmp_path):
    out = tmp_path / "xlwings_udfs.bas"
    assert cli.main(["addin", "vba", "-o", str(out)]) == 0
    data = out.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") > 0
    assert data.decode("utf-8").replace("\r\n", "\n") == vba_module()


def test_the_generator_runs_in_a_fresh_interpreter():
    # the stand-ins for pywin32 must be enough for xlwings.udfs on its own, not thanks to this process
    result = subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "addin", "vba"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert result.stdout.count("End Function") == len(udfs.UDFS)
