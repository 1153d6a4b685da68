"""``python -m codur.commands ARGS``: the ``codur`` command (:func:`codur.commands.app.main`)."""

from codur.commands.app import main

main()
