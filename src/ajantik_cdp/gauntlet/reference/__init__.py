"""The reference agent: deterministic, no model, no API key.

``reference_agent`` carries a task's intents out through the Playwright page it is
handed (it imports no I/O library itself); ``reference_vocabulary`` is the accessible
names it looks for and what each preset can do.
"""
