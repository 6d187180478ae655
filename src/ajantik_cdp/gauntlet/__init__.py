"""`ajantik gauntlet`: perturbation suites over the bundled shop.

    suite/      what a suite asks for: the suite file, the demo suite, task intents,
                the expected state, the variants                                  pure
    evidence/   what an executor is asked (RunSpec) and what a run brings back
                (RunResult, the agent's claim)                                    pure
    score/      from evidence to numbers: scoring, the classifier, intervals, the
                summary, results.json, the comparison                             pure
    report/     what a run is shown as: the HTML report, terminal tables, progress,
                the preset table                                    imports no I/O
    reference/  the reference agent and its vocabulary                imports no I/O
    run/        carrying suites out on this machine: the suite session, executors,
                the run harness, command agents, loading suite files, the doctor

Dependencies run one way: run/ uses all the others, report/ uses score/, score/ uses
evidence/ and suite/, nothing uses run/ but the command line. tests/test_layout.py
checks that the folders marked pure (and those importing no I/O) keep to it.
"""
