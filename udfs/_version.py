"""The one place the gputco version lives (read by pyproject.toml and the workbooks)."""

__version__ = "0.1.0"
