"""Driving ``codur run`` in-process (typer's CliRunner) with scripted models instead of the config's."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from codur.commands.app import app, route
from codur.llm import ScriptedChatModel, StaticModelProvider

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    """``scripted(actor_replies)`` makes the CLI's runs use these replies; returns the models by role.
    The agent path is taken (no patch pipeline, no critic, no retry waits)."""
    for key, value in {"CODUR_REPAIR": "false", "CODUR_CRITIC": "false", "CODUR_RETRY_BASE_DELAY_S": "0",
                       "CODUR_MAX_TURNS": "1"}.items():
        monkeypatch.setenv(key, value)

    def use(actor: list, planner: list | None = None) -> dict[str, ScriptedChatModel]:
        models = {"actor": ScriptedChatModel(replies=actor)}
        if planner is not None:  # a planner model named is asked on every first plan (seed 004)
            models["planner"] = ScriptedChatModel(replies=planner)
        monkeypatch.setattr("codur.commands.run.provide_models", lambda config: StaticModelProvider(models))
        return models

    return use


def _invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(app, route(list(args)), input=input, prog_name="codur")


@pytest.fixture
def invoke():
    """``invoke(*args, input=...)``: ``codur ARGS`` in-process, routed like the console script;
    the click Result (``stdout`` and ``stderr`` apart)."""
    return _invoke
