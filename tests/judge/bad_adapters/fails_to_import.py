from _base import claim, done_right, held, units  # noqa: F401

TASK = {"A-1": 1}
EXPECTED = TASK["A-2"]  # raises KeyError while the module loads
