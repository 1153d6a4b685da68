"""The state's record of a patch search (:class:`PatchOutcome`): built from the pipeline's
result, read back from a dict (Studio's input, an older checkpoint) and from a checkpoint."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from pydantic import ValidationError

from codur.config import CodurConfig
from codur.core.contracts import PatchStatus
from codur.graph.state import patch_of, state_serializer
from codur.patch import PatchResult
from codur.patch.contracts import NearMiss, PatchOutcome, PatchSettings, Queued, SearchEnd

NEAR = {"label": "calc.py: total rewritten by model sample 1", "fixed": 2, "failing": 3,
        "provenance": {"source": "sampling", "sample": 1}, "files": ["calc.py"], "diff": "--- a/calc.py\n"}


def result() -> PatchResult:
    return PatchResult(PatchStatus.PATCHED, diff="d", file="calc.py", files=["calc.py"], label="win",
                       source="mutation", provenance={"source": "mutation", "operator": "swap"},
                       tried={"mutation": 4, "sampling": 0}, refused=["edited tests/test_calc.py"],
                       near_miss=NEAR, phases={"mutation": 1.5}, elapsed_s=2.0)


def test_the_outcome_carries_the_result_s_fields_and_an_applying_error_overrides_its_status():
    outcome = PatchOutcome.from_result(result())
    assert outcome.status is PatchStatus.PATCHED and outcome.source == "mutation" and outcome.label == "win"
    assert outcome.tried == {"mutation": 4, "sampling": 0} and outcome.refused == ["edited tests/test_calc.py"]
    assert outcome.near_miss == NearMiss(**NEAR) and outcome.near_miss.fixed == 2
    assert outcome.phases == {"mutation": 1.5} and outcome.elapsed_s == 2.0
    assert PatchOutcome.from_result(result(), PatchStatus.ERROR).status is PatchStatus.ERROR
    assert outcome["status"] == "patched"  # the fields read as a mapping too


def test_a_dict_is_validated_and_a_wrong_one_is_refused():
    read = patch_of({"patch": {"status": "not_found", "tried": {"mutation": 3}, "near_miss": NEAR}})
    assert read is not None and read.status is PatchStatus.NOT_FOUND and read.near_miss.diff == NEAR["diff"]
    assert patch_of({}) is None
    with pytest.raises(ValidationError):
        PatchOutcome.of({"status": "found it"})
    with pytest.raises(ValidationError):
        PatchOutcome.of({"status": "patched", "stauts": "typo"})


def test_a_checkpoint_loads_the_outcome_back(caplog):
    serde = state_serializer()
    settings = PatchSettings.from_config(CodurConfig())
    ended = dataclasses.replace(result(), status=PatchStatus.BUDGET,
                                end=SearchEnd.of(PatchStatus.BUDGET, settings, tried=4, queued=Queued(9)))
    outcome = PatchOutcome.from_result(ended)
    assert outcome.end is not None and outcome.end.spent == "time" and outcome.end.tried == 4
    with caplog.at_level(logging.WARNING):
        back = serde.loads_typed(serde.dumps_typed({"patch": outcome}))["patch"]
    assert back == outcome and isinstance(back, PatchOutcome) and back.status is PatchStatus.BUDGET
    assert back.end == outcome.end and back.end.as_dict()["stopped"] == "budget"
    assert not [r for r in caplog.records if "Blocked" in r.getMessage()]
