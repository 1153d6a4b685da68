"""Running the repository's tests: the one interpreter rule and test command
(:mod:`codur.testing.command`) every part of codur uses, and the pytest plugin and fork
server that run inside the user's test process (``_runtime/``)."""
