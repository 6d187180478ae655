from _base import claim, held, units  # noqa: F401


def done_right(unit, holds):
    return True
