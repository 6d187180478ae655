"""Serve Harbour Registry for a person: ``python -m ajantik_portal_pilot [--port 8765]
[--reset-token TOKEN]`` (with a token, ``python -m ajantik_portal_pilot.reset`` can reset it)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os

from ajantik_portal_pilot.portal import PASSWORD, USERNAME, Portal


async def serve(port: int, reset_token: str | None) -> None:
    portal = Portal(reset_token=reset_token)
    try:
        await portal.start(port=port)
    except OSError as exc:
        raise SystemExit(f"ajantik_portal_pilot: error: cannot listen on 127.0.0.1:{port}: "
                         f"{exc.strerror}") from None
    print(f"Harbour Registry at {portal.origin}/login  (sign in as {USERNAME} / {PASSWORD})")
    print("Ctrl-C to stop. State is in memory: every start is a fresh registry.")
    if reset_token:
        print("`PORTAL_RESET_TOKEN=... python -m ajantik_portal_pilot.reset` resets it (for "
              "`ajantik test run --before`).")
    try:
        await asyncio.Event().wait()
    finally:
        await portal.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m ajantik_portal_pilot",
                                     description="Serve the Harbour Registry example portal.")
    parser.add_argument("--port", type=int, default=8765,
                        help="port on 127.0.0.1 (default 8765, which skill/guard.json allows)")
    parser.add_argument("--reset-token", default=os.environ.get("PORTAL_RESET_TOKEN"),
                        help="accept POST /_test/reset with this token in X-Reset-Token "
                        "(default: $PORTAL_RESET_TOKEN; none: no reset)")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, args.reset_token))


if __name__ == "__main__":
    main()
