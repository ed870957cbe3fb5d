"""The TCO_ functions in xlwings Lite (Excel on Windows, macOS and the web, no local Python).

xlwings Lite runs Python in the browser (Pyodide) and registers as Excel custom functions the
functions of the workbook's ``main.py`` that carry xlwings's ``@func`` metadata; the packages of
the workbook's ``requirements.txt`` are installed from pure-Python wheels (xlwings Lite
documentation, https://lite.xlwings.org: "Custom Functions", "Python Dependencies"). ``gputco addin
lite`` writes the two files: ``requirements.txt`` names this gputco release, and ``main.py``
decorates every registry entry with xlwings Lite's own ``func``/``arg`` (the same decorators as
classic xlwings: :func:`gputco.addin.xlwings_decorate.build`) into its namespace, where Lite finds
them. Lite brings its own xlwings, so the requirements do not name it. See docs/xlwings-lite.md.
"""

from __future__ import annotations

from gputco.udfs import __version__

#: the main.py of a workbook using gputco in xlwings Lite
MAIN_PY = '''"""gputco's TCO_ functions for this workbook (written by `gputco addin lite`, gputco {version}).

Every TCO_ function of gputco's registry becomes an Excel custom function: type
=TCO_GPU_HOUR("H100_HGX") in a cell. The reference with units: docs/udfs.md of gputco.
Add your own @func and @script functions below.
"""

from xlwings import arg, func, script  # noqa: F401  (script: for your own scripts)

from gputco.addin.xlwings_decorate import build

globals().update(build(func=func, arg=arg))  # TCO_CAPEX_PER_GPU, TCO_GPU_HOUR, ...
'''

#: the requirements.txt: gputco pinned to this release (it brings numpy; Lite brings xlwings)
REQUIREMENTS = "gputco=={version}\n"


def lite_files(version: str = __version__) -> dict[str, str]:
    """{file name: text} of the files xlwings Lite needs in the workbook."""
    return {
        "main.py": MAIN_PY.format(version=version),
        "requirements.txt": REQUIREMENTS.format(version=version),
    }
