"""From judged runs to the test's result. Pure.

``matrix``: each run marked (verdicts, damage, where its fault fired, its gate), cells of
fault x write point x unit with Wilson intervals, and a summary per fault kind.
"""
