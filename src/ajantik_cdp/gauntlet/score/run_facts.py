"""A run's evidence as the outcome ladder and the classifier read it: plain facts, each
taken from one place in the ``RunResult``, so the two never disagree on what happened.
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.gauntlet.evidence.run_data import InfraError, RunResult
from ajantik_cdp.gauntlet.suite.expected_state import Expectation, StateCheck
from ajantik_cdp.gauntlet.suite.variant_set import is_fault


@dataclass(frozen=True)
class Facts:
    fault_variant: bool  # the run had a guard injecting a write fault
    infra: InfraError | None
    state_read: bool
    in_flight: int
    check: StateCheck | None
    stage: str | None
    expected_stage: str
    session_expired_seen: bool  # the shop refused a write with 401 session_expired
    record_read: bool  # the guard's record was there to read (fault variants)
    faulted: int  # record lines a fault answered
    timed_out: bool
    agent_error: str | None  # the agent raised, or its program could not start
    exit_code: int | None
    stderr_last: str  # the last line the agent wrote to stderr (secrets masked)
    said: Said  # what the claim says of the task (no valid claim: unsure)
    claim_status: str | None  # None: no valid claim line
    claim_problem: str | None  # why there is no valid claim
    dialog_open: bool

    @property
    def claimed_done(self) -> bool:
        return self.said is Said.DONE

    @property
    def damage(self) -> tuple[str, ...]:
        return self.check.damage if self.check is not None else ()

    @property
    def done_right(self) -> bool:
        return self.check is not None and self.check.done_right

    @property
    def fault_fired(self) -> bool | None:
        """None for a run without a fault; otherwise whether the guard's record shows a
        write the fault answered."""
        return self.faulted > 0 if self.fault_variant else None


def crash_reason(f: Facts) -> str | None:
    """Why the agent counts as crashed: it raised, could not start, or its program
    exited non-zero without a claim. A program stopped at its deadline exits non-zero
    too; that is a timeout, not a crash."""
    if f.agent_error:
        return f.agent_error
    if f.exit_code not in (None, 0) and f.claim_status is None and not f.timed_out:
        said = f": {f.stderr_last}" if f.stderr_last else ""
        return f"exited with code {f.exit_code} and no claim{said}"
    return None


def last_line(text: str, limit: int = 200) -> str:
    """The last non-blank line: for a Python agent, the exception that killed it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:limit] if lines else ""


def _session_expired_seen(state: dict[str, Any]) -> bool:
    return any(a.get("reason") == "session_expired" for a in state.get("actions", []))


def facts(result: RunResult, expect: Expectation, state_check: StateCheck | None) -> Facts:
    state = result.state or {}
    claim = result.agent.claim
    return Facts(
        fault_variant=is_fault(result.variant), infra=result.infra,
        state_read=result.state is not None,
        in_flight=int(state.get("in_flight", 0) or 0), check=state_check,
        stage=state.get("stage"), expected_stage=expect.stage,
        session_expired_seen=_session_expired_seen(state),
        record_read=result.record is not None,
        faulted=result.record.faulted if result.record else 0,
        timed_out=result.agent.timed_out, agent_error=result.agent.error,
        exit_code=result.agent.exit_code,
        stderr_last=last_line(result.agent.stderr_tail), said=claim.said, claim_status=claim.status,
        claim_problem=claim.problem,
        dialog_open=bool(result.page and result.page.dialog_open),
    )
