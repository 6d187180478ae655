from _base import done_right, held, units  # noqa: F401

from ajantik_cdp.judge import Claim


def claim(unit, report):
    return Claim.done("A-1: done, everything saved")
