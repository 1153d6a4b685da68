"""The state's records take only their outcome enums' words and keep the word itself."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from codur.core.contracts import PatchStatus, RunStatus
from codur.core.ports import QuotaStatus
from codur.graph.records import AgentOutcome, TurnStatus
from codur.graph.state import initial_state, state_serializer


def test_an_outcome_takes_a_turn_or_patch_word_and_keeps_the_word():
    turn = AgentOutcome(agent="coder", status=TurnStatus.COMPLETED)
    patch = AgentOutcome(agent="patch", status="not_found", quota="rate_limited")
    assert type(turn.status) is str and turn.status == "completed" and turn.quota == QuotaStatus.OK
    assert patch.status == PatchStatus.NOT_FOUND and type(patch.quota) is str
    assert json.loads(patch.model_dump_json())["status"] == "not_found"
    with pytest.raises(ValidationError):
        AgentOutcome(agent="coder", status="finished")
    with pytest.raises(ValidationError):
        AgentOutcome(agent="coder", status="completed", quota="plenty")


def test_the_checkpoint_serializer_loads_the_state_and_its_outcome_words_back():
    serde = state_serializer()
    state = {**initial_state("fix it", "/repo", "r1"), "agent_outcome": AgentOutcome(agent="patch", status="patched")}
    back = serde.loads_typed(serde.dumps_typed(state))
    assert back["status"] == RunStatus.RUNNING and back["agent_outcome"].status == "patched"
