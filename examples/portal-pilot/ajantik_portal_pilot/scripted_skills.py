"""Two scripted skills that follow skill/SKILL.md the way an agent would, step by step,
with no model: the stand-ins ``ajantik demo`` crash-tests.

* **blind** believes every answer the page shows. A save that shows an error is tried
  once more; a save that shows success is taken as done. It skips SKILL.md's read-back
  (step 7), as an agent in a hurry does.
* **verifying** never believes a save until it has read the filing back: after each
  filing's writes it opens the review page, redoes only what the registry does not hold,
  and reports from what it read.

On an expired session (HTTP 401) both ask the operator to sign in again, when there is
one to ask (``ask``: in-process from ``ajantik demo``, or over stdin/stdout from
``skill_command.py``), and retry that step once; a second 401, or no operator, stops the
work, as SKILL.md says. Both end with the report format SKILL.md prescribes. Neither
ever runs proceed_to_submission.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

from ajantik_portal_pilot.skill.scripts.check_filing import check_filing
from ajantik_portal_pilot.skill.scripts.portal_session import StepFailed
from ajantik_portal_pilot.skill.scripts.read_dashboard import read_dashboard
from ajantik_portal_pilot.skill.scripts.save_section import save_section
from ajantik_portal_pilot.skill.scripts.upload_document import upload_document
from ajantik_portal_pilot.task import FilingTask

# Ask the operator: (what, why) -> whether it was done. "sign_in" is the one this skill asks.
Ask = Callable[[str, str], Awaitable[bool]]
Skill = Callable[[Any, str, list[FilingTask], Ask | None], Awaitable[str]]
SESSION_EXPIRED = 401
# The order an agent fills the wizard in: the declaration comes last, after the upload.
WRITE_ORDER = ("company", "officers", "capital", "documents", "declaration")


class _SessionExpired(Exception):
    pass


def _report(lines: list[str]) -> str:
    return "\n".join(["FILING REPORT", *lines]) + "\n"


def _writes(task: FilingTask) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for part in WRITE_ORDER:
        if part == "documents":
            out.extend(("documents", doc) for doc in task.documents)
        elif part in task.sections:
            out.append((part, task.sections[part]))
    return out


async def _write(page: Any, portal: str, task: FilingTask, part: str,
                 value: Any) -> dict[str, Any]:
    try:
        if part == "documents":
            result = await upload_document(page, portal, task.record, str(value))
        else:
            result = await save_section(page, portal, task.record, part, value)
    except StepFailed as exc:
        result = {"ok": False, "http_status": exc.http_status, "message": str(exc)}
    if result.get("http_status") == SESSION_EXPIRED:
        raise _SessionExpired(result.get("message", ""))
    return result


async def _write_signed_in(page: Any, portal: str, task: FilingTask, part: str, value: Any,
                           ask: Ask | None) -> dict[str, Any]:
    """A write; after a 401, the operator is asked to sign in again and it is tried once
    more (a second 401 raises _SessionExpired)."""
    try:
        return await _write(page, portal, task, part, value)
    except _SessionExpired as exc:
        if ask is None or not await ask("sign_in", f"the portal session expired while "
                                        f"saving {task.record} {part} ({exc}); sign in "
                                        "again, please"):
            raise
        return await _write(page, portal, task, part, value)


async def _start(page: Any, portal: str, ask: Ask | None) -> None:
    """Confirm the browser is signed in (SKILL.md step 1), asking the operator if not."""
    try:
        await read_dashboard(page, portal)
    except StepFailed as exc:
        if exc.http_status != SESSION_EXPIRED or ask is None or not await ask(
                "sign_in", f"the portal asks to sign in ({exc}); sign in, please"):
            raise
        await read_dashboard(page, portal)


STOPPED = "the portal session expired (HTTP 401); the operator must sign in again"


def _what(part: str, value: Any) -> str:
    return f"upload of {value.name}" if part == "documents" else f"section {part}"


async def blind(page: Any, portal: str, tasks: list[FilingTask], ask: Ask | None = None) -> str:
    await _start(page, portal, ask)
    lines: list[str] = []
    stopped = ""
    for task in tasks:
        if stopped:
            lines.append(f"{task.record}: not done — not started: {stopped}")
            continue
        problems: list[str] = []
        try:
            for part, value in _writes(task):
                result = await _write_signed_in(page, portal, task, part, value, ask)
                if not result["ok"]:
                    result = await _write_signed_in(page, portal, task, part, value, ask)
                if not result["ok"]:
                    problems.append(f"{_what(part, value)} failed: {result['message']}")
        except _SessionExpired:
            stopped = STOPPED
            problems.append(stopped)
        if problems:
            lines.append(f"{task.record}: not done — " + "; ".join(problems))
        else:
            lines.append(f"{task.record}: done — every section saved and "
                         f"{len(task.documents)} document(s) uploaded; ready for the "
                         "operator to submit")
    return _report(lines)


def _gaps(task: FilingTask, seen: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[str]]:
    """What the registry does not hold as asked (to redo), and duplicates (to report)."""
    todo: list[tuple[str, Any]] = []
    notes: list[str] = []
    sections = seen.get("sections") or {}
    for part, value in _writes(task):
        if part == "documents":
            digest = hashlib.sha256(value.read_bytes()).hexdigest()
            copies = [d for d in seen.get("documents") or [] if d.get("sha256") == digest]
            if not copies:
                todo.append((part, value))
            elif len(copies) > 1:
                notes.append(f"{value.name} is held {len(copies)} times")
        elif sections.get(part) != value:
            todo.append((part, value))
    return todo, notes


async def verifying(page: Any, portal: str, tasks: list[FilingTask],
                    ask: Ask | None = None) -> str:
    await _start(page, portal, ask)
    lines: list[str] = []
    stopped = ""
    for task in tasks:
        if stopped:
            lines.append(f"{task.record}: not done — not started: {stopped}")
            continue
        seen: dict[str, Any] | None = None
        try:
            for part, value in _writes(task):
                await _write_signed_in(page, portal, task, part, value, ask)
            # Whatever the page said, only the read-back counts. Redo what is missing,
            # at most twice, and never re-upload a document the registry already holds.
            for _ in range(2):
                seen = await check_filing(page, portal, task.record)
                todo, _notes = _gaps(task, seen)
                if not todo:
                    break
                seen = None
                for part, value in todo:
                    await _write_signed_in(page, portal, task, part, value, ask)
        except _SessionExpired:
            stopped = STOPPED
            seen = None
        if seen is None:
            try:
                seen = await check_filing(page, portal, task.record)
            except Exception as exc:
                lines.append(f"{task.record}: unsure — could not read the filing back ({exc})")
                continue
        todo, notes = _gaps(task, seen)
        extra = ("; note: " + "; ".join(notes)) if notes else ""
        if todo:
            missing = ", ".join(_what(p, v) for p, v in todo)
            why = f" ({stopped})" if stopped else ""
            lines.append(f"{task.record}: not done — the registry does not hold: "
                         f"{missing}{why}{extra}")
        else:
            lines.append(f"{task.record}: done — read back from the review page: every "
                         f"section and document is held as asked{extra}")
    return _report(lines)


SKILLS: dict[str, Skill] = {"blind": blind, "verifying": verifying}
