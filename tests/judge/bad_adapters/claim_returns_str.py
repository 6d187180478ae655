from _base import done_right, held, units  # noqa: F401


def claim(unit, report):
    return "done"
