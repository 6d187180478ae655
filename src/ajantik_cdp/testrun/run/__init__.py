"""Running a test: the skill (any program, or the demo's scripted skills), the system it
works on, the operator that answers its asks, and the runner that puts each run through
a fresh guard and the judge."""
