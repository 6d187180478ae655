from _base import claim, held, units  # noqa: F401

from ajantik_cdp.judge import Unreadable


def done_right(unit, holds):
    raise Unreadable("the answer was withheld")
