"""Running the repository's tests: the one interpreter rule and test command
(:mod:`codur.testing.command`) every part of codur uses, the one test-file and test-id rule
(:mod:`codur.testing.ids`), the report a run gives (:mod:`codur.testing.report`), and the
pytest plugin and fork server that run inside the user's test process (``_runtime/``)."""
