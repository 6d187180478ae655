"""`ajantik cdp`: the guard."""

from __future__ import annotations

from pathlib import Path

import click
import uvloop

from ajantik_cdp.cli.env_options import from_environment
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.config_file import (
    EXAMPLE_PREFIX,
    EXAMPLES,
    config_path,
    example_names,
    load_config_file,
)
from ajantik_cdp.core.guard.film import DEFAULT_FPS, MAX_FPS, FilmPolicy
from ajantik_cdp.core.policy.config import ConfigError, GuardConfig, parse_config
from ajantik_cdp.core.policy.faults import FaultSpec, FaultSpecError, parse_fault
from ajantik_cdp.output_folder import check_film_folder, check_parent
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.proxy.server import GuardOptions, run_guard

NAME = "ajantik cdp"


@from_environment("AJANTIK_CDP")
@click.command("cdp")
@click.option("--upstream", required=True, metavar="URL",
              help="Chrome's debugging address, e.g. http://127.0.0.1:9335, or its browser "
              "websocket ws://HOST:PORT/devtools/browser/ID (a Chrome attached through "
              "chrome://inspect, with no /json endpoints). Keep it private: skills get the "
              "guard's address instead.")
@click.option("--port", default=9333, show_default=True, type=click.IntRange(0, 65535),
              help="Port skills connect to (CDP_URL=http://127.0.0.1:PORT). 0 picks a free one.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback exposes the logged-in browser.")
@click.option("--config", "config_text", metavar="FILE|example:NAME",
              help="Guard rules, JSON or YAML: deny, deny_clicks, allow_writes, record, redact, "
              "share_cookies. "
              "Shipped, commented examples: "
              + ", ".join(EXAMPLE_PREFIX + n for n in example_names())
              + f" (in {EXAMPLES}; copy one to start yours).")
@click.option("--record", "record_path", default="ajantik-cdp.jsonl", show_default=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="The JSONL record of every write and block (its folder is created if "
              "missing, once Chrome answers). An earlier record at this path is moved "
              "aside, never overwritten.")
@click.option("--fault", "fault_text", metavar="KIND:PATTERN",
              help="Inject one fault on a write whose URL matches PATTERN. KIND is "
              "phantom_success, transient_error, phantom_failure or session_drop.")
@click.option("--fault-at", default=1, show_default=True, type=int, metavar="N",
              help="Fire on the N-th matching write instead of the first.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN",
              help="Let web pages from ORIGIN connect (repeatable; '*' for any). By default "
              "connections from web pages are refused.")
@click.option("--hold-timeout", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds a client's command may wait for the guard to take hold of a new "
              "target before it is refused.")
@click.option("--film", "film_dir", type=click.Path(path_type=Path, file_okay=False),
              metavar="DIR",
              help="Film every page into DIR: screencast frames (JPEG) and a still right "
              "after each write, block and fault, listed in the record with the client's "
              "actions. Pages at a `redact` URL are not filmed. An earlier film in DIR is "
              "moved aside; a DIR holding anything else is refused.")
@click.option("--film-fps", default=DEFAULT_FPS, show_default=True,
              type=click.FloatRange(0, MAX_FPS), metavar="N",
              help="Most screencast frames kept per second and page (Chrome sends one only "
              "when the page changed); 0 films stills only, no screencast.")
@click.option("-v", "--verbose", is_flag=True, help="Log debugging detail.")
def cdp_command(upstream: str, port: int, host: str, config_text: str | None,
                record_path: Path, fault_text: str | None, fault_at: int,
                allow_origins: tuple[str, ...], hold_timeout: float, film_dir: Path | None,
                film_fps: float, verbose: bool) -> int:
    """Guard a logged-in Chrome: a skill connects here exactly as it would to Chrome.

    \b
    chromium --user-data-dir=$HOME/.portal-profile --remote-debugging-port=9335
    ajantik cdp --upstream http://127.0.0.1:9335 --port 9333 --config guard.json
    CDP_URL=http://127.0.0.1:9333 python step.py
    ajantik cdp --upstream http://127.0.0.1:9335 --config example:portal   # shipped

    The guard keeps its own DevTools session on every tab, frame and worker. Denied
    writes and page loads fail with net::ERR_BLOCKED_BY_CLIENT, presses on deny_clicks
    controls are swallowed, and every write is recorded (secrets withheld). Cookies
    stay in Chrome: a client's cookie reads come back without them (config key
    share_cookies hands some or all out). If the guard
    loses Chrome it closes every client connection and exits with code 3. Ctrl-C, SIGTERM
    and SIGHUP stop it cleanly (exit 0, or 4 when a WebSocket the rules deny got through
    during the run: the guard ends it at once and records it as escaped, never as
    blocked). Exit codes: 0 stopped, 2 bad flags or config, 3 Chrome cannot be reached
    or was lost, 4 something denied got through.

    Every option can also be set in the environment variable named after it (below);
    the command line wins.
    """
    configure(NAME, verbose)
    config = _load_config(config_text)
    fault = _parse_fault(fault_text, fault_at)
    check_parent(record_path, "--record")  # created once Chrome answers (server.py)
    if film_dir is not None:
        check_film_folder(film_dir)
    options = GuardOptions(
        upstream=upstream, config=config, host=host, port=port, record_path=record_path,
        allow_origins=allow_origins, fault=fault, hold_timeout=hold_timeout,
        film=FilmSettings(film_dir, FilmPolicy(fps=film_fps)) if film_dir else None,
    )
    # uvloop: every client command and Chrome's answer pass through this loop, and its
    # socket wake-ups are cheaper than asyncio's own. Measured side by side
    # (docs/guard.md, "Performance"): the evaluate round trip 1.24x direct against 1.37x.
    return uvloop.run(run_guard(options))


def _load_config(text: str | None) -> GuardConfig:
    try:
        if text is None:
            return parse_config({}, "(none)")
        path = config_path(text)
        if text.startswith(EXAMPLE_PREFIX):
            click.echo(f"{NAME}: config {text} is {path}", err=True)
        return load_config_file(path)
    except ConfigError as exc:
        raise CommandFailed(NAME, f"bad config {exc}", 2) from None


def _parse_fault(text: str | None, at: int) -> FaultSpec | None:
    if text is None:
        if at != 1:
            raise CommandFailed(NAME, "--fault-at needs --fault", 2)
        return None
    try:
        return parse_fault(text, at)
    except FaultSpecError as exc:
        raise CommandFailed(NAME, str(exc), 2) from None
