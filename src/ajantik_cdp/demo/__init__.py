"""``ajantik demo``: ``ajantik test run`` applied to the portal-pilot example's two scripted
skills (same planner, runner, judge and report), every run on a fresh portal and checked
against the portal's own state."""
