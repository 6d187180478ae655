"""What a CI system reads, built from a suite's or a judgement's results. Pure.

- ``junit``: a JUnit XML report (GitHub, GitLab and Jenkins read the same subset).
- ``github``: workflow-command annotations and the markdown of a step summary.
- ``gauntlet_outputs`` and ``judge_outputs``: one testcase per run or unit, the
  annotations for silent wrong and missed thresholds, the verdict matrix as markdown.

Writing them (a file, stdout, ``$GITHUB_STEP_SUMMARY``) is ``cli/ci_publish.py``'s job.
"""
