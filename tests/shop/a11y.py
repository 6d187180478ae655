"""A small structural accessibility check of a page's HTML: every input has a label,
every button a name, and there is one top-level heading. Not a full audit: the Playwright
tests find every control by its accessible name, which is the check that matters."""

from __future__ import annotations

from html.parser import HTMLParser


class _Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[str | None] = []
        self.labels: set[str] = set()
        self.buttons: list[tuple[str | None, list[str]]] = []
        self.h1 = 0
        self._button_text: list[str] | None = None
        self._template = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "input":
            self.inputs.append(a.get("id"))
        elif tag == "label" and a.get("for"):
            self.labels.add(str(a["for"]))
        elif tag == "button":
            self._button_text = []
            self.buttons.append((a.get("aria-label"), self._button_text))
        elif tag == "h1":
            self.h1 += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._button_text = None

    def handle_data(self, data: str) -> None:
        if self._button_text is not None:
            self._button_text.append(data)


def problems(html: str) -> list[str]:
    scan = _Scan()
    scan.feed(html)
    found = [f"input #{i} has no label" for i in scan.inputs if i is None or i not in scan.labels]
    found += [f"button without a name: {text}" for label, text in scan.buttons
              if not (label or "".join(text).strip())]
    if scan.h1 != 1:
        found.append(f"{scan.h1} h1 headings")
    return found
