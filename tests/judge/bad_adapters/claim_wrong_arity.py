from _base import done_right, held, units  # noqa: F401

from ajantik_cdp.judge import Claim


def claim(unit):  # forgot the report
    return Claim.silent()
