"""The engine document's names: `memory=`, a role map of providers, a MockProvider without a
script, and the codur.memory / codur.providers modules — run as a user would, in an empty folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codur.engine import EngineComponents, InMemorySessionStore
from codur.llm import ScriptedChatModel
from codur.llm.scripted import GREETING

EXAMPLE = '''
import asyncio
from codur.engine import EngineComponents, LocalEngine, RunRequest
from codur.memory import InMemorySessionStore
from codur.providers import MockProvider

components = EngineComponents(models={"planner": MockProvider(), "actor": MockProvider()},
                              memory=InMemorySessionStore())
result = asyncio.run(LocalEngine().execute(RunRequest(input="Hello", repo="."), components))
print(result.status.value)
print(result.output_text)
'''


def test_the_example_runs_in_an_empty_folder(tmp_path: Path):
    done = subprocess.run([sys.executable, "-c", EXAMPLE], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    status, *said = done.stdout.strip().splitlines()
    assert status == "success" and GREETING in "\n".join(said)


def test_memory_is_the_session_store():
    store = InMemorySessionStore()
    assert EngineComponents(memory=store).session_store is store


def test_a_role_map_is_checked_when_the_components_are_built():
    model = ScriptedChatModel(replies=["x"])
    assert EngineComponents(models={"actor": model}).model_provider().models_for("actor") == [model]
    with pytest.raises(TypeError, match=r"models\['planner'\]: str is not a chat model"):
        EngineComponents(models={"planner": "gpt-4o-mini"})
