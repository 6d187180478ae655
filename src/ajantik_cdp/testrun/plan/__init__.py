"""What a test will run, decided before anything runs. Pure.

``write_points`` (a clean run's writes grouped into method + path with ids as ``*``, and
the index that aims the guard's fault at the k-th write of one point) and ``run_plan``
(write point x fault kind x repetition, with ``--at first|last|N``).
"""
