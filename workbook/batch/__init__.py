"""Batch runs (``gputco batch``): scenario files in, results out, streamed in chunks."""
