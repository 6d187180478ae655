"""The film page (``ajantik record film``): one run's player on a page of its own."""

from __future__ import annotations

from ajantik_cdp.html_pages import render_page_template
from ajantik_cdp.player.view import FilmView


def render_film_page(title: str, view: FilmView) -> str:
    return render_page_template("player/templates/film_page.html.j2", title=title, view=view)
