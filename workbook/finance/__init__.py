"""The finance workbook (``gputco template``): Cover, Inputs, Model, Compare, Benchmarks, Checks."""
