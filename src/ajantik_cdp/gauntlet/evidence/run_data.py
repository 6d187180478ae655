"""What an executor is asked to do (``RunSpec``) and the evidence it brings back
(``RunResult``). Plain, JSON-able data, so that an executor can live in another process
or on another machine: it needs the spec and the shop's harness address, nothing else.
Pure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ajantik_cdp.gauntlet.evidence.claim_line import AgentClaim
from ajantik_cdp.gauntlet.suite.suite_file import AgentSpec

InfraKind = Literal["browser", "shop", "harness"]


@dataclass(frozen=True)
class RunSpec:
    run_id: str  # unique in the suite run, safe as a folder name: "cookie_popup-r1"
    suite_run: str  # seeds the shop's jitter: same suite_run, same environments
    variant: str
    repetition: int
    agent: AgentSpec
    task_name: str
    task_text: str
    deadline: float  # seconds the agent gets
    artifacts: str  # folder for this run's screenshot, record and agent output
    # Film the run at this many frames a second (its guard's camera in a fault variant,
    # the harness's otherwise); None: no film.
    film_fps: float | None = None
    # The suite's `redact` rules: pages never filmed, bodies a fault run's record withholds.
    redact: tuple[str, ...] = ()


@dataclass(frozen=True)
class InfraError:
    """The harness, the browser or the shop failed: not the agent's doing."""

    kind: InfraKind
    message: str


@dataclass(frozen=True)
class RecordFacts:
    """What the per-run guard's record shows (fault variants only)."""

    path: str
    requests: int
    writes: int
    faulted: int  # request lines a fault answered
    fault_kinds: tuple[str, ...]
    blocks: int
    problems: tuple[str, ...] = ()  # lines the reader could not parse


@dataclass(frozen=True)
class PageFacts:
    """What the run's page showed when the agent stopped, read by the harness."""

    path: str | None  # below the run's start URL, e.g. "cart"
    heading: str | None
    dialog_open: bool  # an interstitial or consent banner was still up
    alert: str | None  # the text of a visible role=alert


@dataclass(frozen=True)
class AgentOutcome:
    claim: AgentClaim
    exit_code: int | None = None  # command agents; None for the in-process reference agent
    timed_out: bool = False
    error: str | None = None  # the agent crashed or could not be started
    steps: tuple[str, ...] = ()
    step_count: int | None = None
    stdout_path: str | None = None
    stderr_path: str | None = None
    stderr_tail: str = ""  # secrets masked


@dataclass(frozen=True)
class Timings:
    total: float = 0.0
    setup: float = 0.0  # shop run, guard, context, first page load
    agent: float = 0.0  # the agent's own time, to its claim or its deadline
    evaluate: float = 0.0  # waiting for in-flight writes, state, screenshot, teardown

    @property
    def harness(self) -> float:
        return max(0.0, self.total - self.agent)


@dataclass(frozen=True)
class RunResult:
    run_id: str
    variant: str
    repetition: int
    worker: int
    started_at: str
    timings: Timings
    agent: AgentOutcome
    state: dict[str, Any] | None = None
    infra: InfraError | None = None
    page: PageFacts | None = None
    record: RecordFacts | None = None
    screenshot: str | None = None  # file name inside the run's artifacts folder
    notes: tuple[str, ...] = field(default=())


def result_data(r: RunResult) -> dict[str, Any]:
    data = asdict(r)
    data["agent"]["claim"] = r.agent.claim.as_data() | {"step_list": list(r.agent.claim.step_list)}
    data["timings"]["harness"] = r.timings.harness
    return data


def result_from_data(d: dict[str, Any]) -> RunResult:
    a = dict(d["agent"])
    c = dict(a.pop("claim"))
    claim = AgentClaim(c.get("status"), c.get("summary") or "", c.get("steps"),
                  tuple(c.get("step_list") or ()), c.get("problem"))
    agent = AgentOutcome(claim=claim, exit_code=a.get("exit_code"),
                         timed_out=bool(a.get("timed_out")), error=a.get("error"),
                         steps=tuple(a.get("steps") or ()), step_count=a.get("step_count"),
                         stdout_path=a.get("stdout_path"), stderr_path=a.get("stderr_path"),
                         stderr_tail=a.get("stderr_tail") or "")
    t = {k: v for k, v in d["timings"].items() if k != "harness"}
    rec = d.get("record")
    page = d.get("page")
    infra = d.get("infra")
    return RunResult(
        run_id=d["run_id"], variant=d["variant"], repetition=d["repetition"],
        worker=d.get("worker", 0), started_at=d.get("started_at", ""), timings=Timings(**t),
        agent=agent, state=d.get("state"),
        infra=InfraError(**infra) if infra else None,
        page=PageFacts(**page) if page else None,
        record=RecordFacts(**{**rec, "fault_kinds": tuple(rec["fault_kinds"]),
                              "problems": tuple(rec.get("problems", ()))}) if rec else None,
        screenshot=d.get("screenshot"), notes=tuple(d.get("notes") or ()))
