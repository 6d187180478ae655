"""The sans-I/O core.

Everything in this package is a pure function or a small state machine over plain
dataclasses. Nothing here imports asyncio, sockets or HTTP clients: the asyncio layer in
``ajantik_cdp.proxy`` moves messages and carries out what these modules decide, which is
what lets the decisions be unit- and property-tested without a browser
(tests/test_layout.py checks the imports of every module here). ``errors`` holds the one
error base, ``AjantikError``, with the exit code the command line gives it.
"""
