"""The module xlwings imports for gputco's Excel functions (xlwings "UDF Modules":
``gputco.addin.xlwings_udfs``).

xlwings (classic UDFs, Windows) imports the modules named in "UDF Modules" with
``importlib.import_module`` (dotted names work), writes a VBA wrapper for every module attribute that
carries xlwings's ``__xlfunc__`` metadata, and calls ``getattr(module, NAME)`` on each recalculation.
This module therefore exposes exactly the functions of the registry, :data:`gputco.udfs.registry.SPECS`,
under their Excel names, each decorated here with xlwings's ``@xw.func``/``@xw.arg``, and nothing
else that xlwings would pick up. It is the only gputco module that imports xlwings.

>>> import gputco.addin.xlwings_udfs as m
>>> from gputco.udfs.registry import UDFS
>>> sorted(m.__all__) == sorted(UDFS)
True
>>> m.TCO_GPU_HOUR("H100_HGX") == UDFS["TCO_GPU_HOUR"]("H100_HGX")
True
"""

from gputco.addin.xlwings_decorate import build as _build

_DECORATED = _build()
globals().update(_DECORATED)

__all__ = list(_DECORATED)  # built from the registry: the Excel names
