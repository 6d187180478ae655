"""The one Jinja environment for every self-contained HTML page (the judge's verdict
page, the demo's report, the gauntlet's report).

One environment so that every page escapes the same way: autoescape on, and a name a
template uses but the page data lacks is an error, never an empty string. Templates are
named by their path inside the package (``judge/templates/verdicts.html.j2``), so each
stays next to the code that fills it.
"""

from __future__ import annotations

from typing import Any

import jinja2

from ajantik_cdp.core.plurals import counted

PAGES = jinja2.Environment(
    loader=jinja2.PackageLoader("ajantik_cdp", ""),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
# `{{ n|counted("run") }}`: "1 run", "2 runs", as every sentence of the command line.
PAGES.filters["counted"] = counted


def render_page_template(template: str, **data: Any) -> str:
    return PAGES.get_template(template).render(**data)
