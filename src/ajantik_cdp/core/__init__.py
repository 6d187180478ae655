"""The sans-I/O core.

Everything in this package is a pure function or a small state machine over plain
dataclasses. Nothing here imports asyncio, sockets or HTTP clients: the asyncio layer in
``ajantik_cdp.proxy`` moves messages and carries out what these modules decide, which is
what lets the decisions be unit- and property-tested without a browser
(tests/test_layout.py checks the imports of every module here).

- ``policy``: what the guard allows: the config, URL rules over canonical URLs, the
  ``deny_clicks`` dialect, WebSocket patterns, the write fault.
- ``guard``: the guard's state machines in Chrome: targets, the client gate, interception
  of paused requests, the cookie filter, discovery answers, the preload lease, the film.
- ``record``: the one record schema, and what it may hold (redaction, secret detection).
- ``scoring``: verdicts per unit, the run gate, reliability statistics.
- ``errors`` holds the one error base, ``AjantikError``, with the exit code the command
  line gives it; ``plurals`` and ``yaml_problems`` word messages.
"""
