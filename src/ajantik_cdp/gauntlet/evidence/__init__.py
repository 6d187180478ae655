"""What an executor is asked to do and the evidence a run brings back. Pure.

``run_data`` (``RunSpec``, ``RunResult`` and its parts: plain, JSON-able data, so an
executor can live in another process) and ``claim_line`` (the agent's claim: the last
JSON line it printed).
"""
