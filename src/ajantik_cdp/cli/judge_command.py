"""`ajantik test judge`: one verdict per unit of work, from the record and an adapter."""

from __future__ import annotations

from pathlib import Path

import click

from ajantik_cdp.ci.judge_outputs import judge_outputs
from ajantik_cdp.cli.ci_publish import check_junit, junit_option, publish
from ajantik_cdp.cli.console import command_console
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.core.errors import EXIT_BAD_INPUT
from ajantik_cdp.core.scoring.run_gate import EXTRA_FAIL_ON, GatePolicy
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.judge.adapter_api import Record, RecordUnusable, Report
from ajantik_cdp.judge.adapter_loader import AdapterError, load_adapter
from ajantik_cdp.judge.judging import Judgement, judge
from ajantik_cdp.judge.verdict_file import InputFile, InputFiles, encode_verdicts, verdicts_data
from ajantik_cdp.judge.verdict_page import Page, RunView, render_page
from ajantik_cdp.judge.verdict_table import print_judgement
from ajantik_cdp.output_folder import make_parent
from ajantik_cdp.player.view import film_view
from ajantik_cdp.record.reader import load_record

NAME = "ajantik test judge"

_file = click.Path(path_type=Path, dir_okay=False)
# Always failing: accepted by --fail-on so older CI lines keep working.
ALWAYS_FAIL = ("silent_wrong", "unscorable", "damage")
FAIL_ON_CHOICES = (*ALWAYS_FAIL, *sorted(v.value for v in EXTRA_FAIL_ON))


@click.command("judge")
@click.option("--adapter", "adapter_path", required=True, type=_file, metavar="ADAPTER.py",
              help="The skill's adapter: which units, what the system holds, what the report "
              "claims. See docs/adapter.md.")
@click.option("--record", "record_path", default="ajantik-cdp.jsonl", show_default=True,
              type=_file, help="The guard's record of the run (the only evidence about the "
              "system).")
@click.option("--message", "message_path", required=True, type=_file, metavar="REPORT.txt",
              help="The skill's final report, as text.")
@click.option("--out", "out_path", type=_file, metavar="VERDICTS.json",
              help="Also write the verdicts as versioned JSON.")
@click.option("--html", "html_path", type=_file, metavar="VERDICTS.html",
              help="Also write a self-contained HTML page: each verdict linked to the record "
              "lines it rests on, with the claim it compared; with a player of the run "
              "when the guard filmed it (--film).")
@click.option("--film", "film_dir", type=click.Path(path_type=Path, file_okay=False),
              metavar="DIR", help="Where the run's frames are, if the film folder was moved "
              "(default: the folder named in the record).")
@junit_option("one testcase per unit and one for the gate (<failure> for silent wrong, "
              "damage and what the gate fails on, <error> when the run is no test)")
@click.option("--fail-on", "fail_on", multiple=True, type=click.Choice(FAIL_ON_CHOICES),
              help="Also fail on this verdict (repeatable): reported_honestly, "
              "over_cautious. Silent wrong, damage and unscorable units always fail.")
@click.option("--allow-unscorable", is_flag=True,
              help="Let units the record or the report cannot show pass the gate. The "
              "output says which were let through; they are never counted as correct.")
@click.option("--allow-incomplete-record", is_flag=True,
              help="Judge a record that disagrees with its own end line (the guard paused "
              "more recorded requests than the file has lines for, or an answer line is "
              "missing) instead of failing the run as infrastructure. The output still "
              "names every disagreement.")
def judge_command(adapter_path: Path, record_path: Path, message_path: Path,
                  out_path: Path | None, html_path: Path | None, film_dir: Path | None,
                  junit_path: Path | None,
                  fail_on: tuple[str, ...], allow_unscorable: bool,
                  allow_incomplete_record: bool) -> int:
    """Give each unit of work one verdict, from the guard's record, not from the skill.

    \b
    ajantik test judge --adapter adapter.py --record ajantik-cdp.jsonl \\
        --message report.txt --out verdicts.json --html verdicts.html

    \b
    system holds it done right | skill claimed done | verdict
    yes                        | yes                | correct
    no                         | yes                | silent wrong
    no                         | no or unsure       | reported honestly
    yes                        | no or unsure       | over-cautious
    the record cannot show it  | anything           | unscorable (with the reason)
    anything                   | no claim, or one   | unscorable (claim unreadable,
                               | nobody can read    | the line quoted)

    The report is read by the shared claim reader (docs/adapter.md): lists, bold or code
    marks, any dash or colon, tables, headings with a Status line, or one JSON line
    {"units": {...}}. Damage (duplicates, writes into another account's record) is listed
    next to the verdict. Deterministic; calls no model and no network.

    \b
    Exit code 0 only when every unit was scored and none is silent wrong or damaged
    (and, when the record names a fault, the fault fired); 1 otherwise (unscorable units
    pass with --allow-unscorable, and the output says so; a record that disagrees with its
    end line fails unless --allow-incomplete-record); 2 for bad inputs (a broken adapter,
    an unreadable record).
    """
    if allow_unscorable and "unscorable" in fail_on:
        raise CommandFailed(NAME, "--fail-on unscorable and --allow-unscorable contradict "
                            "each other; choose one", EXIT_BAD_INPUT)
    policy = GatePolicy(allow_unscorable=allow_unscorable,
                        fail_on=frozenset(Verdict(v) for v in fail_on if v not in ALWAYS_FAIL),
                        allow_incomplete_record=allow_incomplete_record)
    check_junit(junit_path)
    judgement = run_judge(adapter_path, record_path, message_path)
    gate = judgement.gate(policy)
    sources = InputFiles(InputFile.of(adapter_path), InputFile.of(record_path),
                         InputFile.of(message_path))
    console = command_console()
    print_judgement(console, judgement, gate)
    for note in judgement.notes:
        click.echo(f"{NAME}: warning: {note}", err=True)
    if out_path is not None:
        _write(out_path, "--out", encode_verdicts(verdicts_data(judgement, sources, policy)))
        click.echo(f"verdicts: {out_path}")
    if html_path is not None:
        film = film_view(load_record(record_path), "run", film_dir)
        page = Page(title=f"Verdicts for {record_path.name}",
                    runs=(RunView("run", str(record_path), judgement, sources, policy,
                                  film=film),))
        _write(html_path, "--html", render_page(page).encode())
        click.echo(f"page: {html_path}")
    # The record's path as given, less its suffix, names the run in a CI's view: the
    # file a reader opens next, told apart from every other run's (Jenkins and the GitHub
    # reporters read the part after a classname's last dot as its class).
    run_name = str(record_path.with_suffix("") if record_path.suffix == ".jsonl"
                   else record_path)
    publish(NAME, judge_outputs(record_path.name, judgement, gate, policy,
                                classname=run_name), junit_path)
    if gate.allowed:
        flags = " and ".join(f for f, on in (("--allow-unscorable", allow_unscorable),
                                             ("--allow-incomplete-record",
                                              allow_incomplete_record)) if on)
        click.echo(f"{NAME}: {flags} let through: " + "; ".join(gate.allowed), err=True)
    if not gate.passed:
        click.echo(f"{NAME}: failing ({gate.outcome.label}): " + "; ".join(gate.failing),
                   err=True)
    return gate.exit_code


def run_judge(adapter_path: Path, record_path: Path, message_path: Path) -> Judgement:
    try:
        record = Record.read(record_path)
    except FileNotFoundError:
        raise CommandFailed(NAME, f"record {record_path} not found", EXIT_BAD_INPUT) from None
    except OSError as exc:
        raise CommandFailed(NAME, f"cannot read record {record_path}: {exc.strerror}",
                            EXIT_BAD_INPUT) from None
    except RecordUnusable as exc:
        raise CommandFailed(NAME, f"not a usable guard record: {exc}", EXIT_BAD_INPUT) from None
    try:
        text = message_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandFailed(NAME, f"report {message_path} not found", EXIT_BAD_INPUT) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandFailed(NAME, f"cannot read report {message_path}: {exc}",
                            EXIT_BAD_INPUT) from None
    try:
        adapter = load_adapter(adapter_path)
        return judge(adapter, record, Report(text, message_path))
    except AdapterError as exc:
        raise CommandFailed(NAME, str(exc), EXIT_BAD_INPUT) from None


def _write(path: Path, flag: str, data: bytes) -> None:
    make_parent(path, flag)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise CommandFailed(NAME, f"cannot write {path}: {exc.strerror or exc}",
                            EXIT_BAD_INPUT) from None
