"""The bundled demo suite, as the YAML a person would write (``--print-suite`` shows it),
parsed by the same validator as any suite file."""

from __future__ import annotations

from ajantik_cdp.gauntlet.suite.suite_file import Suite, parse_suite

DEMO_SUITE_YAML = """\
# ajantik gauntlet demo: the reference agent over every variant, twice each.
version: 1
name: Checkout demo
agent: {type: reference, preset: reference}   # naive | reference | resilient
task:
  name: Checkout
  description: >
    Add Aurora Headphones to cart, apply coupon SAVE20, proceed to checkout, enter
    Name: Ada Lovelace and City: London, continue to review, and stop before payment.
variants: all          # the 11 UI variants of the shop and the 4 write faults
repetitions: 2
workers: 4             # runs at a time, one headless Chromium each
deadline: 60           # seconds per run
thresholds: {reliability: 0.9}   # overall and for every variant; silent wrong must be 0
"""


def demo_suite(preset: str = "reference", repetitions: int = 2,
               variants: tuple[str, ...] | None = None) -> Suite:
    text = DEMO_SUITE_YAML.replace("preset: reference", f"preset: {preset}") \
        .replace("repetitions: 2", f"repetitions: {repetitions}")
    if variants is not None:
        text = text.replace("variants: all", f"variants: [{', '.join(variants)}]")
    return parse_suite(text, "<demo suite>")
