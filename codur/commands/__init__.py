"""The ``codur`` command line: one module per command family, the root app in :mod:`.app`.

- :mod:`codur.commands.app`: the root Typer app, ``codur TASK`` routed to ``codur run``, the
  lazy subcommand table (``SUBCOMMANDS``) and the console entry point ``main``;
- :mod:`codur.commands.run`: ``codur run`` (the main job);
- :mod:`codur.commands.repair`: ``codur repair`` (mutation repair, no model);
- :mod:`codur.commands.batch`: ``codur batch``;
- :mod:`codur.commands.rlm`: ``codur rlm``;
- :mod:`codur.commands.tools`: ``codur tools``;
- :mod:`codur.commands.history`: ``codur runs``, ``show``, ``undo``;
- :mod:`codur.commands.config`: ``codur config``, ``trust``.

Each imports Typer and Rich only at module level; its engine is imported when it runs.
"""
