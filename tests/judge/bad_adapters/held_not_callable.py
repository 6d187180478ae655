from _base import claim, done_right, units  # noqa: F401

held = {"A-1": "approved"}
