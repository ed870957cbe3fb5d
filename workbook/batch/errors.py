"""The batch runner's error type (its own module, so the readers and the runner share it)."""

from gputco.udfs.errors import GputcoError


class BatchError(GputcoError, ValueError):
    """A batch input that cannot be run (bad format, bad column, bad rows)."""
