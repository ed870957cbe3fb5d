"""Scenario workbooks (``gputco scenarios``): SPEC, Scenarios rows, Summary, Sensitivity, Monte Carlo."""
