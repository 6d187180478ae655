from _base import done_right, held, units  # noqa: F401  (claim is missing on purpose)
