"""What the ``codur`` command shows: live progress, the run's summary, the write confirmation.

Light on purpose: importing these modules pulls in Rich only (no LangGraph, no langchain),
so ``codur --help`` stays fast; the engine is imported inside the command functions.
"""
