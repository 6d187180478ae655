from _base import claim, done_right, units  # noqa: F401


def held(unit, record):
    return {"status": "approved"}
