"""Registered agents: Python classes behind :class:`codur.core.ports.AgentPort`.

The command-line agent (``kind="cli"``) and Python agents from entry points or a dotted
path (``kind="python"``, :mod:`codur.agents.plugins`).
"""

from codur.agents.cli_agent import CommandLineAgent
from codur.agents.plugins import AgentLoadError, load_agent, registered_agents

__all__ = ["AgentLoadError", "CommandLineAgent", "load_agent", "registered_agents"]
