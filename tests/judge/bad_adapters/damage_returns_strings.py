from _base import claim, done_right, held, units  # noqa: F401


def damage(record):
    return ["A-1 was duplicated"]
