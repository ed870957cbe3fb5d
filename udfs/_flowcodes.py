"""The codes the cash-flow functions and their compiled kernels share, defined once: the range an
IRR is searched in, why a row has no IRR, and the sides of 0 a root may lie on. A leaf module, so
:mod:`gputco.udfs.flows` (which imports the kernels lazily) and :mod:`gputco.udfs._flowkernels`
(which compiles these values in) both import it without importing each other."""

from __future__ import annotations

#: the per-period rates an IRR is searched in (the grid's ends)
LOW, HIGH = -1.0 + 1e-9, 1e6
#: why a row has no IRR: codes of :func:`gputco.udfs.flows.irr`
FOUND, NO_SIGN_CHANGE, NO_ROOT = 0, 1, 2
#: the sides of 0 a root may lie on (:func:`gputco.udfs.flows.root_bound`)
ABOVE, BELOW = 1, 2
