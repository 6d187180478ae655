"""Writing a test's two files, results.json and report.html, at the end of a test, and
also when it stopped early or was interrupted: what finished is never lost."""

from __future__ import annotations

from pathlib import Path

from ajantik_cdp.testrun.report.report_page import render_report, report_page
from ajantik_cdp.testrun.report.results_file import encode_results, results_data
from ajantik_cdp.testrun.run.runner import SessionResult


def write_outputs(outcome: SessionResult, out_dir: Path, *, title: str, intro: str,
                  command: list[str] | None = None,
                  conclusions: tuple[tuple[bool, str], ...] = ()) -> tuple[Path, Path]:
    results = out_dir / "results.json"
    results.write_bytes(encode_results(results_data(outcome, command=command,
                                                    conclusions=list(conclusions))))
    report = out_dir / "report.html"
    report.write_text(render_report(report_page(outcome, title, intro, conclusions)),
                      encoding="utf-8")
    return results, report
