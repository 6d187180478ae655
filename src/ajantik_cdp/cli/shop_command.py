"""`ajantik shop`: the bundled storefront, alone, with one run ready for an agent."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import os
import signal
from pathlib import Path

import click

from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.core.errors import EXIT_BAD_INPUT
from ajantik_cdp.output_folder import make_parent
from ajantik_shop import VARIANT_NAMES, VARIANTS, BrowserSetup, RunCoordinates, ShopServer

NAME = "ajantik shop"
SECRET_ENV = "AJANTIK_SHOP_SECRET"


def describe_browser(setup: BrowserSetup) -> str:
    parts = [f"viewport {setup.width}x{setup.height}", f"locale {setup.locale}",
             f"time zone {setup.timezone_id}"]
    if setup.device_scale_factor != 1:
        parts.append(f"device scale {setup.device_scale_factor:g}")
    if setup.is_mobile:
        parts.append("mobile")
    if setup.has_touch:
        parts.append("touch")
    if setup.user_agent:
        parts.append(f"user agent {setup.user_agent!r}")
    if setup.latency_ms is not None:
        parts.append(f"{setup.latency_ms} ms added latency")
    return ", ".join(parts)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _write_secret(path: Path, secret: str) -> None:
    make_parent(path, "--secret-file")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secret + "\n")
    except OSError as exc:
        raise CommandFailed(NAME, f"cannot write --secret-file {path}: {exc.strerror}",
                            EXIT_BAD_INPUT) from None


@click.command("shop")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535),
              help="Port to serve the shop on. 0 picks a free one.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback lets other machines use it.")
@click.option("--variant", type=click.Choice(VARIANT_NAMES), default="baseline", metavar="NAME",
              show_default=True, help="The perturbation for the run (see --list-variants).")
@click.option("--suite-run", default="manual", show_default=True, metavar="ID",
              help="Suite run id. With --variant and --repetition it fixes every random "
              "choice: sha256(suite_run|variant|repetition).")
@click.option("--repetition", default=0, show_default=True, type=click.IntRange(0),
              help="Repetition number within the suite run.")
@click.option("--secret-file", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the evaluator secret to this file (mode 600) instead of printing "
              f"it. ${SECRET_ENV}, when set, is used as the secret and never printed.")
@click.option("--list-variants", is_flag=True, help="List the variants and what each changes.")
@click.option("-v", "--verbose", is_flag=True, help="Log debugging detail.")
def shop_command(port: int, host: str, variant: str, suite_run: str, repetition: int,
                 secret_file: Path | None, list_variants: bool, verbose: bool) -> int:
    """Serve the bundled storefront and create one run for an agent.

    \b
    ajantik shop --port 8080 --variant cookie_popup

    Prints the agent's start URL on stdout (give the agent only that) and, on stderr, the
    browser setup the variant requires and the evaluator's state URL, which needs the
    evaluator secret. More runs can be created through POST /harness/runs (see
    docs/shop.md). Runs live in memory until the shop stops; Ctrl-C or SIGTERM stops it.
    """
    if list_variants:
        for name, declared in VARIANTS.items():
            click.echo(f"{name:18} {declared.declares}")
        return 0
    configure(NAME, verbose)
    env_secret = os.environ.get(SECRET_ENV) or None
    server = ShopServer(host=host, port=port, secret=env_secret)
    if secret_file is not None and env_secret is None:
        _write_secret(secret_file, server.secret)
    try:
        return asyncio.run(_serve(server, RunCoordinates(suite_run, variant, repetition),
                                  secret_file if env_secret is None else None,
                                  env_secret is not None))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CommandFailed(NAME, f"port {port} on {host} is in use (pick another with "
                                "--port, or 0 for a free one)", EXIT_BAD_INPUT) from None
        raise CommandFailed(NAME, f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                            EXIT_BAD_INPUT) from None


def say(line: str) -> None:
    click.echo(f"{NAME}: {line}", err=True)


async def _serve(server: ShopServer, coords: RunCoordinates, secret_file: Path | None,
                 secret_from_env: bool) -> int:
    await server.start()
    try:
        info = server.create_run(coords)
        say(f"storefront on {server.base_url} (Ctrl-C stops it; runs live in memory only)")
        if not _is_loopback(server.host):
            say(f"warning: listening on {server.host}: anyone who can reach it can shop here")
        say(f"run: {coords.variant} (suite_run {coords.suite_run!r}, repetition "
            f"{coords.repetition}): {info.environment.declares}")
        say(f"the agent's browser must have: {describe_browser(info.environment.browser)}")
        if secret_from_env:
            secret_hint = f"${SECRET_ENV}"
        elif secret_file is not None:
            secret_hint = f"$(cat {secret_file})"
        else:
            secret_hint = server.secret
        say("evaluator only, never the agent: curl -H \"Authorization: Bearer "
            f"{secret_hint}\" {info.state_url}")
        say(f"the run's full browser setup (Playwright options, CDP commands): same header, "
            f"{server.base_url}/harness/runs/{info.token}")
        say("the agent's start URL is on stdout:")
        click.echo(info.start_url)
        await _until_stopped()
        say("stopping")
    finally:
        await server.stop()
    return 0


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows has no add_signal_handler
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()
