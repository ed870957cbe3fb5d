"""The module xlwings imports for gputco's Excel functions: set "UDF Modules" to ``addin.xlwings_udfs``.

xlwings (classic UDFs, Windows) imports the modules named in "UDF Modules" with
``importlib.import_module`` (dotted names work), writes a VBA wrapper for every module attribute that
carries xlwings's ``__xlfunc__`` metadata, and calls ``getattr(module, NAME)`` on each recalculation.
This module therefore exposes exactly the functions of the registry, :data:`udfs.UDFS`, under their
Excel names, and nothing else that xlwings would pick up.

>>> import addin.xlwings_udfs as m
>>> sorted(m.__all__) == sorted(m.UDFS)
True
>>> m.TCO_GPU_HOUR is m.UDFS["TCO_GPU_HOUR"]
True
"""

from udfs import UDFS

globals().update(UDFS)

__all__ = list(UDFS)  # built from the registry: the Excel names
