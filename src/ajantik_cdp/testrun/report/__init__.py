"""A test's outputs: the terminal (plan, progress, matrix), ``results.json`` (versioned)
and ``report.html`` (self-contained; each cell links to its run's verdicts and record
lines)."""
