"""Serving an aiohttp app on a local port: the guard, the shop, the portal, test sites."""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web


async def start_app(app: web.Application, host: str = "127.0.0.1", port: int = 0, *,
                    more_hosts: Sequence[str] = ()) -> tuple[web.AppRunner, int]:
    """Start ``app`` and return its runner and the port it is bound to (``port=0`` picks a
    free one). ``more_hosts`` serve the same app on that same port, which is how a second
    loopback address (127.0.0.2) becomes a second origin for out-of-process frames.
    Raises OSError when the port is taken; the runner is cleaned up first."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        # aiohttp keeps the bound socket on the site; with port 0 it is the only place
        # the chosen port can be read from.
        sockets = getattr(site._server, "sockets", None)
        assert sockets
        bound: int = sockets[0].getsockname()[1]
        for other in more_hosts:
            await web.TCPSite(runner, other, bound).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, bound
