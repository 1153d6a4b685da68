"""Registered agents: Python classes behind :class:`codur.core.ports.AgentPort`."""

from codur.agents.cli_agent import CommandLineAgent

__all__ = ["CommandLineAgent"]
