"""A broken adapter gets one clear error naming the function and the problem (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ajantik_cdp.cli.main import main
from ajantik_cdp.judge.adapter_api import Record, Report
from ajantik_cdp.judge.adapter_loader import AdapterError, load_adapter
from ajantik_cdp.judge.judging import judge
from tests.judge.conftest import BAD

# adapter file -> (function named in the error, words the problem must contain)
CASES = {
    "lacks_claim.py": ("claim(unit, report)", "is missing"),
    "fails_to_import.py": (None, "failed to import: KeyError: 'A-2' (at line 4)"),
    "held_not_callable.py": ("held(unit, record)", "is a dict, not a function"),
    "claim_wrong_arity.py": ("claim(unit, report)", "must take 2 arguments"),
    "held_returns_dict.py": ("held('A-1', record)", "returned a dict; return Held.known"),
    "done_right_returns_bool.py": ("done_right('A-1', holds)", "returned a bool"),
    "claim_returns_str.py": ("claim('A-1', report)", "returned a str; return read_claim("),
    "claim_quotes_what_is_not_said.py": ("claim('A-1', report)", "which is not in the report"),
    "units_returns_str.py": ("units(record, report)", "returned a str"),
    "units_returns_nothing.py": ("units(record, report)", "returned no units"),
    "units_repeats.py": ("units(record, report)", "returned 'A-1' more than once"),
    "held_raises.py": ("held('A-1', record)", "raised KeyError: 'A-1' (at line 6)"),
    "held_cites_missing_line.py": ("held('A-1', record)", "cites line 999"),
    "damage_returns_strings.py": ("damage(record)", "returned a str in its list"),
    "damage_names_unknown_unit.py": ("damage(record)", "names unit 'B-7'"),
    "done_right_reads_the_record.py": ("done_right('A-1', holds)", "read the record in held()"),
}


def _judge(adapter: Path, record: Path, report: Path) -> None:
    judge(load_adapter(adapter), Record.read(record), Report(report.read_text()))


def test_every_bad_adapter_fixture_is_covered() -> None:
    files = {p.name for p in BAD.glob("*.py") if not p.name.startswith("_")}
    assert files == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_adapter_names_function_and_problem(name: str, simple_record: Path,
                                                report: Path) -> None:
    function, problem = CASES[name]
    with pytest.raises(AdapterError) as caught:
        _judge(BAD / name, simple_record, report)
    assert caught.value.function == function
    assert problem in caught.value.problem
    assert str(BAD / name) in str(caught.value)


def test_missing_adapter(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match="file not found"):
        load_adapter(tmp_path / "adapter.py")


def test_adapter_that_does_not_compile(tmp_path: Path) -> None:
    path = tmp_path / "adapter.py"
    path.write_text("def units(record, report):\n    return [\n")
    with pytest.raises(AdapterError, match=r"does not compile: line \d"):
        load_adapter(path)


def test_adapter_must_be_a_python_file(tmp_path: Path) -> None:
    path = tmp_path / "adapter.json"
    path.write_text("{}")
    with pytest.raises(AdapterError, match="Python file"):
        load_adapter(path)


def test_the_documented_template_is_a_valid_adapter(template_adapter: Path,
                                                    simple_record: Path, report: Path) -> None:
    adapter = load_adapter(template_adapter)
    assert adapter.has_damage
    _judge(template_adapter, simple_record, report)


@pytest.mark.parametrize("name", ["held_returns_dict.py", "lacks_claim.py"])
def test_cli_bad_adapter_is_one_line_and_exit_2(name: str, simple_record: Path, report: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["test", "judge", "--adapter", str(BAD / name), "--record", str(simple_record),
              "--message", str(report)])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("ajantik test judge: error: adapter ")
    assert CASES[name][0] in err
