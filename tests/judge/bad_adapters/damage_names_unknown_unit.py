from _base import claim, done_right, held, units  # noqa: F401

from ajantik_cdp.judge import Damage


def damage(record):
    return [Damage("duplicate", "B-7 holds two copies", "B-7")]
