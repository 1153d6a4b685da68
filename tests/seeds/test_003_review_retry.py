"""Seed 003, review_node's verification rule 4, as written: "If different error: retry with agent
or attempt repair", with "config.runtime.max_iterations for verification retries"."""

from __future__ import annotations

from pathlib import Path

from codur import CodurConfig, RunStatus
from tests.graph.test_routing import DOC_EDIT, RATE_EDIT, SHOP, SHOP_FIX, SHOP_NEAR, call, run_with, trace
from tests.repair.conftest import write_repo

#: three edits that leave a different set of failing tests each time (a different error)
WRONG = [call("replace_in_file", path="shop.py", old="gross = quantity + unit", new="gross = quantity * unit"),
         call("replace_in_file", path="shop.py", old="return gross * 0.9", new="return gross * 0.8"),
         call("replace_in_file", path="shop.py", old="    return gross\n", new="    return gross + 1\n")]


def test_different_error_retry_with_agent_after_the_repair_found_nothing(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    result, _ = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", SHOP_FIX, "Fixed."], repair=True, repair_workers=2,
                         fixers=["sampling", "agent"], samples=1)
    assert result.status is RunStatus.SUCCESS and result.turns == 2
    assert [e["strategy"] for e in trace(result, "agent.retry")] == ["fresh_retry"]


def test_different_error_retries_up_to_config_runtime_max_iterations(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    config = CodurConfig(max_turns=3)
    assert config.runtime.max_iterations == 3  # the seed's name of the Plan→Act→Verify cycles
    replies = [WRONG[0], "Done.", WRONG[1], "Done.", WRONG[2], "Done.", "never played"]
    result, models = run_with(repo, replies, max_turns=3)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    assert result.nodes.count("delegate") == 3 and models["actor"].remaining == 1


def test_different_error_retries_counted_by_the_give_up_rule(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    result, _ = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", RATE_EDIT, "Done."], repair=True, repair_workers=2,
                         fixers=["sampling", "agent"], samples=1, max_turns=5)
    assert result.reason == "no_progress" and result.metadata["stop"]["turns_without_progress"] == 2
