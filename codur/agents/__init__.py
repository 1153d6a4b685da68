"""Registered agents: Python classes behind :class:`codur.engine.ports.AgentPort`."""

from codur.agents.cli_agent import CommandLineAgent

__all__ = ["CommandLineAgent"]
