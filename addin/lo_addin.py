"""``gputco addin libreoffice``'s machinery, which lives in :mod:`gputco.workbook.soffice.lo_addin`.

It moved there so that workbook/ (``gputco render``, the engine's LibreOffice fallback) can run
LibreOffice with the add-in without importing addin/. This module keeps the old import path.
"""

from gputco.workbook.soffice.lo_addin import (  # noqa: F401
    BRIDGE,
    MODULE,
    SCRIPT_URL,
    AddinError,
    Installed,
    basic_function,
    basic_module,
    bridge_script,
    default_profile,
    install,
    installed,
    uninstall,
)
