"""Keeping remote browsers' endpoints out of what a suite writes: the evidence of every
run, the agent's output files, and the log lines of this process.

The harness and Playwright quote the address they were given in their errors, and an
agent may print its ``CDP_URL``; all of it passes through here on its way to
``results.json``, the report, the run folders or a terminal.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.endpoints import EndpointScrubber
from ajantik_cdp.gauntlet.evidence.run_data import RunResult, result_data, result_from_data

AGENT_FILES = ("agent.stdout", "agent.stderr")


def scrub_result(result: RunResult, scrubber: EndpointScrubber) -> RunResult:
    if not scrubber:
        return result
    data: Any = scrubber.scrub_data(result_data(result))
    return result_from_data(data)


def scrub_agent_files(folder: Path, scrubber: EndpointScrubber) -> None:
    if not scrubber:
        return
    for name in AGENT_FILES:
        path = folder / name
        with contextlib.suppress(OSError):
            raw = path.read_bytes()
            text = raw.decode("utf-8", "surrogateescape")
            clean = scrubber.scrub(text)
            if clean != text:
                path.write_bytes(clean.encode("utf-8", "surrogateescape"))


class _ScrubFilter(logging.Filter):
    def __init__(self, scrubber: EndpointScrubber) -> None:
        super().__init__()
        self.scrubber = scrubber

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = self.scrubber.scrub(message)
        if record.exc_info and record.exc_info[1] is not None:
            # A traceback would quote the exception's text as it was.
            clean += "\n" + self.scrubber.scrub(logging.Formatter().formatException(
                record.exc_info))
            record.exc_info = None
            record.exc_text = None
        record.msg, record.args = clean, ()
        return True


@contextlib.contextmanager
def scrubbed_logging(scrubber: EndpointScrubber) -> Iterator[None]:
    """Every log line this process writes while the block runs, scrubbed: the filter
    sits on every handler of the root and ``ajantik`` loggers, because a logger's own
    filters never see the records its children pass up."""
    if not scrubber:
        yield
        return
    filt = _ScrubFilter(scrubber)
    handlers = [h for name in ("", "ajantik") for h in logging.getLogger(name).handlers]
    if logging.lastResort is not None:  # where records go when no handler is set up
        handlers.append(logging.lastResort)
    for handler in handlers:
        handler.addFilter(filt)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(filt)
