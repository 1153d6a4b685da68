"""Budget rules: limits, can_proceed, sub-budgets charged to parents, downgrade, parallelism, prices."""

import math

import pytest

from codur.llm.pricing import price_per_mtok
from codur.llm.usage import call_usage
from codur.rlm.bridge import ModelClient
from codur.rlm.budget import Budget, BudgetLimits, Usage


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def budget(clock=None, **limits) -> Budget:
    return Budget(BudgetLimits(**limits), clock=clock or Clock())


def test_iterations_limit():
    b = budget(max_iterations=2)
    assert b.can_proceed("iteration")
    b.start_iteration()
    b.start_iteration()
    assert not b.can_proceed("iteration")
    assert "iteration limit" in b.check("iteration")
    assert b.can_proceed("call") and b.can_proceed("subcall")


def test_depth_limit_blocks_subcalls_only():
    b = budget(max_depth=1)
    assert b.can_proceed("subcall")
    child = b.allocate(0.5, max_iterations=3)
    assert child.depth == 1
    assert "depth limit" in child.check("subcall")
    assert child.can_proceed("iteration") and child.can_proceed("call")


def test_zero_depth_forbids_recursion():
    assert not budget(max_depth=0).can_proceed("subcall")


@pytest.mark.parametrize("usage, reason", [
    (Usage(cost_usd=0.5), "cost limit"),
    (Usage(input_tokens=900, output_tokens=100), "token limit"),
])
def test_cost_and_token_limits(usage, reason):
    b = budget(max_cost_usd=0.5, max_tokens=1000)
    b.record(usage)
    for kind in ("iteration", "subcall", "call"):
        assert reason in b.check(kind)


def test_wall_time_limit():
    clock = Clock()
    b = budget(clock, max_wall_s=10)
    clock.now += 9.9
    assert b.can_proceed("call")
    clock.now += 0.2
    assert "time limit" in b.check("call")


def test_none_means_unlimited():
    b = budget(max_cost_usd=None, max_tokens=None, max_wall_s=None)
    b.record(Usage(10**9, 10**9, 10**6, 1))
    assert b.can_proceed("call")
    assert b.remaining_fraction() == 1.0
    assert math.isinf(b.remaining_cost_usd())


def test_child_usage_is_charged_to_ancestors():
    root = budget(max_tokens=10_000)
    child = root.allocate(0.5, max_iterations=2)
    grandchild = child.allocate(0.5, max_iterations=2)
    grandchild.record(Usage(100, 50, 0.01, 1))
    for b in (root, child, grandchild):
        assert b.spent.total_tokens == 150 and b.spent.calls == 1


def test_allocation_takes_a_share_of_what_is_left():
    clock = Clock()
    root = budget(clock, max_cost_usd=1.0, max_tokens=10_000, max_wall_s=100, max_iterations=6)
    root.record(Usage(1000, 1000, 0.2, 1))
    clock.now += 20
    child = root.allocate(0.5, max_iterations=3, wall_share=0.25)
    assert child.limits.max_cost_usd == pytest.approx(0.4)
    assert child.limits.max_tokens == 4000
    assert child.limits.max_wall_s == pytest.approx(20)
    assert child.limits.max_iterations == 3
    assert child.limits.max_depth == root.limits.max_depth
    assert child.spent.total_tokens == 0


def test_child_is_stopped_by_an_exhausted_ancestor():
    root = budget(max_tokens=1000)
    child = root.allocate(1.0, max_iterations=3)
    root.record(Usage(1000, 0))  # spent elsewhere (a sibling)
    assert "depth 0 budget" in child.check("call")


def test_downgrade_threshold():
    b = budget(max_tokens=1000, downgrade_threshold=0.25)
    b.record(Usage(700, 0))
    assert not b.should_downgrade()
    b.record(Usage(60, 0))
    assert b.should_downgrade()


def test_parallelism_is_limited_by_tasks_max_parallel_and_budget():
    b = budget(max_tokens=1000, max_parallel=4)
    assert b.parallelism(2) == 2
    assert b.parallelism(10) == 4
    b.record(Usage(500, 0))
    assert b.parallelism(10) == 2
    b.record(Usage(450, 0))
    assert b.parallelism(10) == 1


def test_prices_longest_prefix_and_overrides():
    assert ModelClient(None, "gpt-4o-mini-2024-07-18").usd_per_mtok() == (0.15, 0.60)
    assert ModelClient(None, "gpt-4o-2024-08-06").usd_per_mtok() == (2.50, 10.00)
    assert ModelClient(None, "qwen2.5-coder-1.5b-instruct").usd_per_mtok() == (0.0, 0.0)
    assert ModelClient(None, "my-model").usd_per_mtok() is None
    assert ModelClient(None, "my-model", {"my-": (1.0, 2.0)}).usd_per_mtok() == (1.0, 2.0)


def test_a_calls_usage_is_priced_in_usd():
    u = call_usage({"input_tokens": 1_000_000, "output_tokens": 100_000}, price_per_mtok("gpt-4o"), 2.0)
    assert u.cost_usd == pytest.approx(2.5 + 1.0)
    assert u.calls == 1 and u.model_s == 2.0
    free = price_per_mtok("qwen2.5-coder-1.5b-instruct")
    assert call_usage({"input_tokens": 5000, "output_tokens": 500}, free).cost_usd == 0
    assert call_usage(None, price_per_mtok("x")).total_tokens == 0
