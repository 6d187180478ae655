"""Suite validation: a good suite loads; a bad one is refused with every problem in one
message."""

from __future__ import annotations

import textwrap

import pytest

from ajantik_cdp.gauntlet.suite.demo_suite import DEMO_SUITE_YAML, demo_suite
from ajantik_cdp.gauntlet.suite.suite_file import (
    CommandAgentSpec,
    ReferenceAgentSpec,
    SuiteError,
    parse_suite,
)
from ajantik_cdp.gauntlet.suite.variant_set import ALL_VARIANTS
from tests.gauntlet.builders import TASK


def suite_text(**overrides: str) -> str:
    parts = {
        "version": "version: 1",
        "agent": "agent: {type: reference, preset: reference}",
        "task": f"task:\n  name: Checkout\n  description: >\n    {TASK}",
        "variants": "variants: [baseline, cookie_popup, phantom_add_to_cart]",
        "repetitions": "repetitions: 3",
        "workers": "workers: 4",
        "thresholds": "thresholds: {reliability: 0.9}",
    }
    parts.update(overrides)
    return "\n".join(v for v in parts.values() if v) + "\n"


def test_the_issue_suite_loads() -> None:
    s = parse_suite(suite_text())
    assert s.agent == ReferenceAgentSpec("reference")
    assert s.variants == ("baseline", "cookie_popup", "phantom_add_to_cart")
    assert (s.repetitions, s.workers, s.run_count) == (3, 4, 9)
    assert s.thresholds.reliability == 0.9 and s.thresholds.max_silent_wrong == 0
    assert s.task.expect_source == "description"
    assert s.task.expect.stage == "review"


def test_the_demo_suite_is_a_valid_suite_of_every_variant() -> None:
    s = demo_suite()
    assert s.variants == ALL_VARIANTS and len(ALL_VARIANTS) == 15
    assert s.repetitions == 2 and s.thresholds.reliability == 0.9
    assert parse_suite(DEMO_SUITE_YAML).agent == ReferenceAgentSpec("reference")
    assert demo_suite("resilient").agent == ReferenceAgentSpec("resilient")


def test_every_problem_is_reported_in_one_message() -> None:
    text = suite_text(
        version="version: 2",
        agent="agent: {type: reference, preset: clever}",
        variants="variants: [baseline, rainy_day, baseline]",
        repetitions="repetitions: 0",
        workers="workers: many",
        thresholds="thresholds: {reliability: 1.5, colour: red}",
    )
    with pytest.raises(SuiteError) as err:
        parse_suite(text, "gauntlet.yaml")
    problems = err.value.problems
    assert len(problems) == 8, problems
    message = str(err.value)
    assert message.startswith("gauntlet.yaml: 8 problems: ")
    assert "\n" not in message
    for words in ("version", "clever", "rainy_day", "listed twice", "repetitions",
                  "workers", "thresholds.reliability", "thresholds.colour"):
        assert words in message


def test_the_old_name_of_workers_is_still_read_with_a_note() -> None:
    s = parse_suite(suite_text(workers="concurrency: 3"))
    assert s.workers == 3 and any("now called workers" in w for w in s.warnings)
    assert not any("workers" in w for w in parse_suite(suite_text()).warnings)
    with pytest.raises(SuiteError) as err:  # both: which one did the writer mean?
        parse_suite(suite_text(workers="workers: 4\nconcurrency: 3"))
    assert err.value.problems == ["concurrency: is the old name of workers: give only "
                                  "workers"]
    with pytest.raises(SuiteError) as err:  # the old name is checked as the new one is
        parse_suite(suite_text(workers="concurrency: 99"))
    assert "workers" in str(err.value)


def test_yaml_errors_say_where() -> None:
    with pytest.raises(SuiteError) as err:
        parse_suite("version: 1\nagent: [unclosed\n", "s.yaml")
    assert "line" in str(err.value) and "not valid YAML" in str(err.value)


def test_the_reference_agent_refuses_a_task_it_cannot_follow() -> None:
    text = suite_text(task="task:\n  name: T\n  description: Add Aurora Headphones to cart "
                           "and then sing a song")
    with pytest.raises(SuiteError) as err:
        parse_suite(text)
    assert "sing a song" in str(err.value)


def test_a_command_agent_with_an_explicit_expectation() -> None:
    text = suite_text(
        agent="agent: {type: command, run: \"python3 my agent.py --fast\", env: {MODEL: x}}",
        task=textwrap.dedent("""\
            task:
              name: Buy a lamp
              description: Get me a desk lamp in the cart, whatever it takes.
              expect: {cart: {Lumen Desk Lamp: 1}, coupon: null, stage: cart}"""))
    s = parse_suite(text, "suite.yaml", "/work/suites")
    assert isinstance(s.agent, CommandAgentSpec)
    assert s.agent.argv == ("python3", "my", "agent.py", "--fast")
    assert s.agent.cwd == "/work/suites"
    assert s.agent.as_data()["env"] == ["MODEL"]  # names only: values may be secrets
    assert s.task.expect.cart == (("lumen-desk-lamp", 1),)
    assert s.task.expect_source == "task.expect"


def test_a_missing_program_is_a_suite_problem() -> None:
    text = suite_text(agent="agent: {type: command, run: nowhere-agent --x}")
    with pytest.raises(SuiteError) as err:
        parse_suite(text, find_program=lambda program, folder: None)
    assert "nowhere-agent" in str(err.value)


def test_a_free_form_task_without_expect_is_refused_for_a_command_agent() -> None:
    text = suite_text(agent="agent: {type: command, run: agent}",
                      task="task:\n  name: T\n  description: Buy something nice.")
    with pytest.raises(SuiteError) as err:
        parse_suite(text)
    assert "task.expect" in str(err.value)


def test_no_baseline_is_a_warning_not_an_error() -> None:
    s = parse_suite(suite_text(variants="variants: [cookie_popup]"))
    assert any("baseline" in w for w in s.warnings)


def test_the_silent_failure_rate_threshold_is_validated_with_the_others() -> None:
    s = parse_suite(suite_text(thresholds="thresholds: {reliability: 0.9, "
                                          "max_silent_failure_rate: 0.05}"))
    assert s.thresholds.max_silent_failure_rate == 0.05
    assert s.as_data()["thresholds"]["max_silent_failure_rate"] == 0.05
    assert parse_suite(suite_text()).thresholds.max_silent_failure_rate is None
    with pytest.raises(SuiteError) as err:
        parse_suite(suite_text(thresholds="thresholds: {max_silent_failure_rate: 5, "
                                          "max_silent_wrong: -1, gate: upper}"), "g.yaml")
    message = str(err.value)
    assert "3 problems" in message
    assert ("thresholds.max_silent_failure_rate: must be a number from 0 to 1 or null, "
            "got 5 (a share of runs: 0.05 is 5%)") in message
    assert "thresholds.max_silent_wrong" in message and "thresholds.gate" in message
    with pytest.raises(SuiteError, match="max_silent_failure_rate: must be a number"):
        parse_suite(suite_text(thresholds="thresholds: {max_silent_failure_rate: yes}"))
    with pytest.raises(SuiteError, match="max_silent_failure_rat: unknown key"):
        parse_suite(suite_text(thresholds="thresholds: {max_silent_failure_rat: 0}"))


def test_redact_rules_are_read_as_the_guard_reads_them() -> None:
    s = parse_suite(suite_text(redact="redact: ['/login', 'password']"))
    assert s.redact == ("/login", "password")
    assert s.as_data()["redact"] == ["/login", "password"]
    # A suite without them reads as it did before the key existed.
    assert "redact" not in parse_suite(suite_text()).as_data()
    assert parse_suite(suite_text()).redact == ()


@pytest.mark.parametrize(("line", "said"), [
    ("redact: '/login'", "redact: must be a list of URL patterns"),
    ("redact: [1]", "redact: must be a list of URL patterns"),
    ("redact: ['(']", "redact[0] '(' does not compile"),
])
def test_bad_redact_rules_are_suite_problems(line: str, said: str) -> None:
    with pytest.raises(SuiteError) as caught:
        parse_suite(suite_text(redact=line))
    assert said in str(caught.value)
