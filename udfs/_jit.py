"""How the cash-flow kernels run: as Python (and numpy) for small work, compiled by numba for
batch-sized work. The one place that chooses.

A kernel is written once, in :mod:`gputco.udfs._flowkernels` or :mod:`gputco.udfs._projectkernels`,
as a plain Python function marked by :func:`kernel`, :func:`step` or :func:`inner_step` (the
marks record numba's options and change nothing else). :func:`kernels` hands a caller the
module itself (the functions interpreted: nothing is compiled, numba is not imported) or its
compiled twin: every marked function of the module compiled by numba from the same code, the
calls between them bound to the compiled ones (numba resolves a kernel's globals when it
compiles it, so the twin's functions share a copy of the module's globals in which the marked
names are the compiled dispatchers; numba's cache keeps them beside the source, as before).

Which one: the work of a call (rows x periods, or runs) against :data:`COMPILE_FROM`, measured
(docs/speed.md, benchmarks/bench_first_call.py): below it, the interpreted kernels finish before
numba would have been imported and its cached kernels loaded, so the TCO_ functions, the
workbooks' recalculation and the LibreOffice add-in never wait for a compiler; at and above it
(``gputco batch``, :func:`gputco.udfs.scenario.evaluate` of many scenarios) the compiled kernels
serve, and once loaded they serve every call of the process. Where numba is not installed
(Pyodide: xlwings Lite has no numba wheel) or cannot load (LibreOffice's own Python with the
user's binary packages), the interpreted kernels serve all work, to the same results.

``GPUTCO_KERNELS`` overrides the choice: ``python`` (always interpreted), ``compiled`` (always
compiled; an error where numba cannot load) or ``auto`` (the default).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
import types
import warnings
from typing import Any

#: numba's options of a kernel: compiled once per machine (numba's cache beside its source),
#: without the GIL
KERNEL = {"cache": True, "nogil": True, "error_model": "numpy"}
#: a kernel's step, called once per row or more: without numba's reference counts (it allocates
#: nothing), which would otherwise count each array it is given, atomically, at every call
STEP = {**KERNEL, "_nrt": False}
#: a step of the innermost loop: also written into each caller (no array descriptors passed)
INNER_STEP = {**STEP, "inline": "always"}

#: the work (a call's rows x periods or runs) from which the compiled kernels serve; below it the
#: interpreted ones (measured: benchmarks/bench_first_call.py, docs/speed.md)
COMPILE_FROM = 50_000

_ATTR = "_gputco_jit"


def _mark(options: dict[str, Any]):
    def mark(f):
        setattr(f, _ATTR, options)
        return f

    return mark


#: a kernel (a loop over rows, called from Python)
kernel = _mark(KERNEL)
#: a kernel's step (called from kernels, once per row or more)
step = _mark(STEP)
#: a step of the innermost loop
inner_step = _mark(INNER_STEP)


def mode() -> str:
    """``GPUTCO_KERNELS``: ``auto`` (unset), ``python`` or ``compiled``."""
    env = os.environ.get("GPUTCO_KERNELS", "").strip().lower() or "auto"
    if env not in ("auto", "python", "compiled"):
        raise ValueError(
            f"GPUTCO_KERNELS must be one of auto, python, compiled, got {os.environ['GPUTCO_KERNELS']!r}"
        )
    return env


def kernels(module: types.ModuleType, work: int) -> Any:
    """The kernels of ``module`` for a call of ``work`` (rows x periods): the module itself
    (interpreted) below :data:`COMPILE_FROM`, its compiled twin at or above it where numba loads,
    and the twin for every call once a call has loaded it in this process (a batch's small calls,
    the rows with several IRRs of a chunk, pay nothing more for it: evaluate with a rent 8% less
    CPU than with them interpreted, measured side by side); ``GPUTCO_KERNELS`` overrides
    (:func:`mode`)."""
    how = mode()
    if how == "python":
        return module
    twin = _TWINS.get(module.__name__)
    if twin is not None:
        return twin
    if how == "auto" and work < COMPILE_FROM:
        return module
    twin = _twin(module, required=how == "compiled")
    return module if twin is None else twin


_LOCK = threading.Lock()
_TWINS: dict[str, types.SimpleNamespace] = {}
_NUMBA: list[Any] = []  # [numba or None], once looked for


def _numba(required: bool = False):
    """numba, or None where it is not installed (Pyodide, the core install) or cannot be imported:
    LibreOffice's own Python runs the TCO_ functions with the user's site-packages, whose binary
    packages (numba imports cffi) need not match its interpreter's; there the kernels run as
    Python, with a warning (an error with ``required``)."""
    if not _NUMBA:
        numba = None
        if importlib.util.find_spec("numba") is not None:
            try:
                numba = importlib.import_module("numba")
                from numba.core.registry import cpu_target

                cpu_target.typing_context.refresh()  # its registries (cffi's): what compiling loads first
            except Exception as err:  # any failure of a binary package to load
                message = f"numba cannot be imported here ({type(err).__name__}: {str(err)[:160]})"
                warnings.warn(
                    f"{message}; gputco's cash-flow kernels run as Python", RuntimeWarning, stacklevel=3
                )
                numba = None
        _NUMBA.append(numba)
    if _NUMBA[0] is None and required:
        raise RuntimeError("GPUTCO_KERNELS=compiled, but numba is not installed or cannot be imported here")
    return _NUMBA[0]


def _twin(module: types.ModuleType, required: bool = False) -> types.SimpleNamespace | None:
    """``module`` with its marked functions compiled (made once per process), or None without
    numba."""
    twin = _TWINS.get(module.__name__)
    if twin is not None:
        return twin
    with _LOCK:
        twin = _TWINS.get(module.__name__)
        if twin is not None:
            return twin
        numba = _numba(required)
        if numba is None:
            return None
        scope = dict(vars(module))  # the compiled functions' globals
        for name, f in vars(module).items():
            options = getattr(f, _ATTR, None)
            if options is None or not isinstance(f, types.FunctionType) or f.__module__ != module.__name__:
                continue
            same = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
            same.__qualname__, same.__doc__ = f.__qualname__, f.__doc__
            scope[name] = numba.njit(**options)(same)
        twin = _TWINS[module.__name__] = types.SimpleNamespace(**scope)
        return twin
