"""xlwings's own Windows call path for UDFs, run on Linux with stand-ins for pywin32 and COM only.

In Excel, a UDF cell calls the VBA wrapper xlwings wrote, which calls xlwings's COM server, which
runs ``xlwings.udfs.call_udf(module, name, args, workbook, caller)``: each argument is either a
COM ``Range`` (a cell reference) or a COM value (a literal in the formula; ``-2147352572`` for an
omitted argument), and xlwings's converters (``xlwings.conversion``, the Excel engine's
``clean_value_data`` in ``xlwings/_xlwindows.py``) turn it into what the UDF receives. This
module imports the real ``xlwings.udfs`` and ``xlwings._xlwindows`` with stand-ins for what only
exists on Windows:

- the pywin32 modules (``pythoncom``, ``pywintypes``, ``win32api``, ``win32com.client``, ...) and
  ``ctypes.windll``/``oledll``/``PyDLL`` while ``_xlwindows`` loads; ``pywintypes.TimeType`` is a
  ``datetime`` subclass, as in pywin32;
- xlwings's COM server module (``xlwings.com_server``: only its asyncio ``loop`` is read);
- :class:`ComRange`: a COM ``Range`` object with its ``Value`` as pywin32 gives it (a scalar for one
  cell, a tuple of row tuples for more; errors as ints, Currency as ``decimal.Decimal``, dates as
  ``TimeType``), its position and the sheet/book/application it belongs to.

Everything else (argument reading, ``ndim=2``, ``err_to_str``, the return conversion) is xlwings's
own code. The module called is ``gputco.addin.xlwings_udfs`` (the "UDF Modules" name users set) with the
registry decorated by xlwings's Windows decorators, as ``@xw.func``/``@xw.arg`` do on Windows.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path

#: what COM passes for an omitted optional argument (DISP_E_PARAMNOTFOUND; xlwings/udfs.py)
MISSING = -2147352572
#: the interface id of Excel's Range (xlwings/_xlwindows.py, is_range_instance)
RANGE_IID = "{00020846-0000-0000-C000-000000000046}"
MODULE = "gputco.addin.xlwings_udfs"


class _Anything:
    """A Windows-only object nobody reads on this path: any attribute, any call."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __call__(self, *args, **kwargs) -> _Anything:
        return _Anything()

    def __getattr__(self, name: str) -> _Anything:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class TimeType(dt.datetime):
    """pywintypes.TimeType: pywin32's date cell value, a datetime subclass."""


class _ComError(Exception):
    pass


def _module(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__getattr__ = lambda attr: _Anything()
    for key, value in attrs.items():
        setattr(mod, key, value)
    return mod


def _stand_ins() -> dict[str, types.ModuleType]:
    client = _module(
        "win32com.client",
        Dispatch=_Anything(),
        DispatchEx=_Anything(),
        **{n: type(n, (), {}) for n in ("CDispatch", "CoClassBaseClass", "DispatchBaseClass")},
    )
    return {
        "pythoncom": _module("pythoncom", __file__="pythoncom.dll"),
        "pywintypes": _module(
            "pywintypes", TimeType=TimeType, com_error=_ComError, error=_ComError, IID=str.upper
        ),
        "win32api": _module("win32api"),
        "win32con": _module("win32con"),
        "win32gui": _module("win32gui"),
        "win32timezone": _module("win32timezone"),
        "win32event": _module("win32event"),
        "win32process": _module("win32process", GetWindowThreadProcessId=lambda hwnd: (1, 4242)),
        "win32com": _module("win32com", client=client),
        "win32com.client": client,
        "xlwings.com_server": _module("xlwings.com_server", loop=None),
    }


class ComRange:
    """A COM Range as pywin32 hands it to xlwings: ``Value`` plus where the range is."""

    def __init__(self, value: object, row: int = 2, column: int = 2) -> None:
        self.Value = value
        rows = value if isinstance(value, tuple) else ((value,),)
        self.Row, self.Column = row, column
        self.Rows = types.SimpleNamespace(Count=len(rows))
        self.Columns = types.SimpleNamespace(Count=len(rows[0]))
        app = types.SimpleNamespace(Hwnd=1)
        book = types.SimpleNamespace(Name="Book1.xlsx", Application=app)
        self.Worksheet = types.SimpleNamespace(Name="Sheet1", Parent=book)
        type_attr = types.SimpleNamespace(iid=RANGE_IID)
        self._oleobj_ = types.SimpleNamespace(
            GetTypeInfo=lambda: types.SimpleNamespace(GetTypeAttr=lambda: type_attr)
        )

    def __getattr__(self, name: str):
        raise AttributeError(f"the stand-in COM Range has no {name!r}: xlwings read more of it")


@contextlib.contextmanager
def excel_call_udf() -> Iterator:
    """``call(name, *com_args)``: xlwings's ``call_udf`` on ``gputco.addin.xlwings_udfs``, for the block."""
    import xlwings
    from xlwings.main import Engine

    from gputco.addin.vba import windows_udfs

    saved = {n: sys.modules.get(n) for n in [*_stand_ins(), "xlwings.udfs", "xlwings._xlwindows", MODULE]}
    saved_ctypes = {n: getattr(ctypes, n, None) for n in ("windll", "oledll", "PyDLL")}
    engines, active = xlwings.engines, xlwings.engines.active
    sys.modules.update(_stand_ins())
    try:
        ctypes.windll = ctypes.oledll = _Anything()
        ctypes.PyDLL = _Anything
        try:
            xw_win = importlib.import_module("xlwings._xlwindows")
        finally:
            ctypes.PyDLL = saved_ctypes["PyDLL"]
        xw_udfs = importlib.import_module("xlwings.udfs")
        engines.add(Engine(impl=xw_win.engine))  # as xlwings/__init__.py does on Windows
        engines.active = engines["excel"]
        module = types.ModuleType(MODULE)
        module.__file__ = str(Path(__file__).resolve().parents[1] / "addin" / "xlwings_udfs.py")
        for name, udf in windows_udfs(xw_udfs).items():
            setattr(module, name, udf)
        sys.modules[MODULE] = module
        xw_udfs.udf_modules.pop(MODULE, None)

        def call(name: str, *args: object) -> object:
            return xw_udfs.call_udf(MODULE, name, args, None, None)

        yield call
    finally:
        engines.engines = [e for e in engines.engines if e.name != "excel"]
        engines.engines_by_name.pop("excel", None)
        engines.active = active
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        for attr in ("udfs", "_xlwindows"):
            if attr in vars(xlwings) and saved[f"xlwings.{attr}"] is None:
                delattr(xlwings, attr)
        for name, value in saved_ctypes.items():
            if value is None:
                if name in vars(ctypes):
                    delattr(ctypes, name)
            else:
                setattr(ctypes, name, value)
