"""The ``codur`` console script: Ctrl-C at any moment, start-up included, exits 130.

The command's own module imports LangGraph, langchain and pydantic (about a second);
a Ctrl-C in that time would otherwise end in a KeyboardInterrupt traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the ``codur`` command (see :func:`codur.commands.app.main`)."""
    try:
        from codur.commands.app import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    cli_main()


if __name__ == "__main__":
    main()
