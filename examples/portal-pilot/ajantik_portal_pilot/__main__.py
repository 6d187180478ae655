"""Serve Harbour Registry for a person: ``python -m ajantik_portal_pilot [--port 8765]``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from ajantik_portal_pilot.portal import PASSWORD, USERNAME, Portal


async def serve(port: int) -> None:
    portal = Portal()
    try:
        await portal.start(port=port)
    except OSError as exc:
        raise SystemExit(f"ajantik_portal_pilot: error: cannot listen on 127.0.0.1:{port}: "
                         f"{exc.strerror}") from None
    print(f"Harbour Registry at {portal.origin}/login  (sign in as {USERNAME} / {PASSWORD})")
    print("Ctrl-C to stop. State is in memory: every start is a fresh registry.")
    try:
        await asyncio.Event().wait()
    finally:
        await portal.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m ajantik_portal_pilot",
                                     description="Serve the Harbour Registry example portal.")
    parser.add_argument("--port", type=int, default=8765,
                        help="port on 127.0.0.1 (default 8765, which skill/guard.json allows)")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
