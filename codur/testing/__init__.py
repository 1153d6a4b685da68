"""Running the repository's tests: the one interpreter rule and test command
(:mod:`codur.testing.command`) every part of codur uses, the one test-file and test-id rule
(:mod:`codur.testing.ids`), the one test runner that starts every run
(:func:`codur.testing.runner.run_tests`, with its warm fork server :mod:`codur.testing.forkserver`
and its confinement :mod:`codur.testing.confine`), what a run said (one run, one test:
:mod:`codur.testing.report`), and the pytest plugin and fork server that run inside the
user's test process (``_runtime/``)."""
