"""Every branch of the bridge (llm_query, rlm_query, batch_rlm_query) with the scripted model."""

import threading
import time

import pytest

from codur.llm import ScriptedChatModel
from codur.rlm.bridge import Bridge, ModelClient
from codur.rlm.budget import Budget, BudgetExceeded, BudgetLimits, Usage
from codur.rlm.trace import RLMTrace


class FakeSpawn:
    """Stands in for the engine: records each child's (task, context, budget) and spends a little."""

    def __init__(self, answer="child answer", delay=0.0, fail_on=None, source="final_direct", together=0):
        """``together``: a child waits (at most 10 s) until that many run at once, so a loaded
        machine that starts the threads late does not make the overlap look smaller."""
        self.answer, self.delay, self.fail_on, self.source = answer, delay, fail_on, source
        self.together = together
        self.calls = []
        self.running = self.max_running = 0
        self.lock = threading.Lock()

    def __call__(self, task, context, budget):
        with self.lock:
            self.calls.append((task, context, budget))
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        deadline = time.monotonic() + 10
        while self.running < self.together and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(self.delay)
        with self.lock:
            self.running -= 1
        if task == self.fail_on:
            raise RuntimeError("child crashed")
        usage = Usage(100, 10, 0.0, 1)
        budget.record(usage)
        trace = RLMTrace(task=task, depth=budget.depth)
        trace.answer, trace.answer_source, trace.usage = f"{self.answer}: {task}", self.source, usage
        if self.source == "error":
            trace.answer, trace.error = None, "ModelError: down"
        return trace


def make(replies=(), spawn=None, **limits):
    model = ScriptedChatModel(replies=list(replies))
    budget = Budget(BudgetLimits(**limits))
    trace = RLMTrace(task="root")
    spawn = spawn or FakeSpawn()
    bridge = Bridge(client=ModelClient(model, "scripted"), budget=budget, trace=trace, spawn=spawn,
                    sub_max_iterations=3, sub_call_chars=50)
    return bridge, model, budget, trace, spawn


# -- llm_query ---------------------------------------------------------------------------------

def test_llm_query_routes_to_the_model_and_records_usage():
    bridge, model, budget, trace, _ = make(["forty-two"])
    assert bridge("llm_query", {"prompt": "what is 6*7?"}) == "forty-two"
    assert model.calls[0][0].content == "what is 6*7?"
    assert budget.spent.calls == 1 and budget.spent.total_tokens > 0
    call = trace.subcalls[0]
    assert (call.kind, call.mode, call.answer) == ("llm_query", "model", "forty-two")
    assert call.usage.total_tokens == budget.spent.total_tokens


def test_llm_query_refused_when_the_budget_is_spent():
    bridge, model, budget, trace, _ = make(["never"], max_tokens=10)
    budget.record(Usage(10, 0))
    with pytest.raises(BudgetExceeded, match="token limit"):
        bridge.llm_query("hi")
    assert model.calls == [] and trace.subcalls[0].mode == "refused"


def test_llm_query_model_failure_is_recorded_and_raised():
    bridge, _, _, trace, _ = make([ConnectionError("endpoint down")])
    with pytest.raises(RuntimeError, match="endpoint down"):
        bridge.llm_query("hi")
    assert "ConnectionError" in trace.subcalls[0].error


# -- rlm_query ---------------------------------------------------------------------------------

def test_rlm_query_spawns_a_sub_executor_with_an_allocated_budget():
    bridge, model, budget, trace, spawn = make(max_tokens=10_000, max_depth=2)
    assert bridge("rlm_query", {"task": "find x", "context": "big piece"}) == "child answer: find x"
    task, context, child = spawn.calls[0]
    assert (task, context) == ("find x", "big piece")
    assert child.depth == 1 and child.parent is budget
    assert child.limits.max_tokens == 5_000 and child.limits.max_iterations == 3
    call = trace.subcalls[0]
    assert call.mode == "rlm" and call.trace.task == "find x" and call.usage.total_tokens == 110
    assert budget.spent.total_tokens == 110  # the child's usage reached the parent
    assert model.calls == []


def test_rlm_query_without_context_gives_the_task_as_context():
    bridge, *_, spawn = make()
    bridge.rlm_query("summarise this long text ...")
    assert spawn.calls[0][1] == "summarise this long text ..."


def test_rlm_query_direct_answer_at_the_depth_limit():
    bridge, model, _, trace, spawn = make(["direct!"], max_depth=0)
    assert bridge.rlm_query("what?", "some text") == "direct!"
    assert spawn.calls == []
    prompt = model.calls[0][0].content
    assert "Answer the task directly" in prompt and "some text" in prompt
    assert trace.subcalls[0].mode == "direct"


def test_rlm_query_downgrades_to_llm_query_below_the_threshold():
    bridge, model, budget, trace, spawn = make(["cheap"], max_tokens=1000, downgrade_threshold=0.5)
    budget.record(Usage(600, 0))
    assert bridge.rlm_query("task", "ctx") == "cheap"
    assert spawn.calls == [] and model.calls[0][0].content == "task\n\nctx"
    assert trace.subcalls[0].mode == "downgraded"


def test_rlm_query_at_the_spent_root_answers_directly_each_time_the_budget_is_out():
    """Issue 38 (seed 001: "rlm_query ... budget exceeded → executor SHALL fall back to direct answer"):
    at the root with its cost spent, every rlm_query gets a direct answer, not only the first; each
    is said in the trace (issue 23, item 4), and none is BudgetExceeded (issue 14, item 6)."""
    bridge, model, budget, trace, spawn = make(["the direct answer", "a second one", "a third"], max_cost_usd=0.01)
    budget.record(Usage(cost_usd=0.01))
    assert bridge("rlm_query", {"task": "sum the column", "context": "1\n2"}) == "the direct answer"
    assert len(model.calls) == 1 and "Answer the task directly" in model.calls[0][0].content
    assert bridge("rlm_query", {"task": "task", "context": "ctx"}) == "a second one"
    assert bridge.rlm_query("and again") == "a third"
    assert len(model.calls) == 3 and spawn.calls == [] and budget.final_answers == 3
    assert [c.mode for c in trace.subcalls] == ["direct", "direct", "direct"]
    assert sum("past its budget" in w for w in trace.warnings) == 3


def test_rlm_query_at_the_root_past_its_time_limit_makes_no_call():
    bridge, model, budget, trace, _ = make(["never"], max_wall_s=0.0)
    assert bridge.rlm_query("task").startswith("[no budget: time limit")
    assert model.calls == [] and trace.subcalls[0].mode == "refused"


def test_rlm_query_with_its_own_budget_spent_gets_one_direct_answer_on_the_parents():
    """A sub-RLM that spent its share: rlm_query becomes one llm_query, charged up the tree."""
    model = ScriptedChatModel(replies=["the direct answer"])
    root = Budget(BudgetLimits(max_tokens=100_000))
    child = root.allocate(0.5, max_iterations=3)
    child.record(Usage(50_000, 0))  # the child's share is spent; the root has 50,000 tokens left
    trace = RLMTrace(task="child")
    bridge = Bridge(client=ModelClient(model, "scripted"), budget=child, trace=trace, spawn=FakeSpawn(),
                    sub_call_chars=50)
    assert child.check("call") and not root.check("call")
    assert bridge.rlm_query("sum the column", "1\n2\n3") == "the direct answer"
    assert len(model.calls) == 1 and "sum the column" in model.calls[0][0].content
    assert trace.subcalls[0].mode == "direct" and root.spent.calls == 1


def test_rlm_query_child_failure_raises_into_the_code():
    bridge, *_ = make(spawn=FakeSpawn(source="error"))
    with pytest.raises(RuntimeError, match="ModelError: down"):
        bridge.rlm_query("task")
    bridge, _, _, trace, _ = make(spawn=FakeSpawn(fail_on="task"))
    with pytest.raises(RuntimeError, match="child crashed"):
        bridge.rlm_query("task")
    assert trace.subcalls[0].error


def test_fallback_truncates_a_long_context_and_warns():
    bridge, model, _, trace, _ = make(["ok"], max_depth=0)
    bridge.rlm_query("task", "z" * 500)
    assert "[output truncated: 500 characters" in model.calls[0][0].content
    assert any("truncated to 50 chars" in w for w in trace.warnings)


# -- batch_rlm_query ---------------------------------------------------------------------------

def test_batch_runs_sub_executors_concurrently_and_records_combined_usage():
    spawn = FakeSpawn(delay=0.2, together=3)
    bridge, _, budget, trace, _ = make(spawn=spawn, max_parallel=3, max_tokens=100_000)
    answers = bridge("batch_rlm_query", {"tasks": ["a", "b", "c"], "contexts": ["A", "B", "C"]})
    assert answers == ["child answer: a", "child answer: b", "child answer: c"]
    assert spawn.max_running == 3
    assert sorted(c[1] for c in spawn.calls) == ["A", "B", "C"]
    assert all(c[2].limits.max_tokens == int(100_000 * 0.8 / 3) for c in spawn.calls)
    batch = trace.subcalls[0]
    assert batch.kind == "batch_rlm_query" and batch.mode == "rlm" and len(batch.children) == 3
    assert batch.usage.total_tokens == 330 == budget.spent.total_tokens
    assert all(child.trace is not None for child in batch.children)


def test_batch_parallelism_is_limited_by_the_budget_left():
    spawn = FakeSpawn(delay=0.1, together=2)
    bridge, _, budget, _, _ = make(spawn=spawn, max_parallel=4, max_tokens=100_000)
    budget.record(Usage(50_000, 0))  # half left: 2 at once
    bridge.batch_rlm_query(["a", "b", "c", "d"])
    assert spawn.max_running == 2


def test_batch_falls_back_to_direct_answers_at_the_depth_limit():
    bridge, model, _, trace, spawn = make(["one", "two"], max_depth=0)
    assert sorted(bridge.batch_rlm_query(["t1", "t2"], ["c1", "c2"])) == ["one", "two"]
    assert spawn.calls == [] and len(model.calls) == 2
    assert trace.subcalls[0].mode == "direct"
    assert {c.mode for c in trace.subcalls[0].children} == {"direct"}


def test_batch_downgrades_below_the_threshold():
    bridge, _, budget, trace, spawn = make(["x", "y"], max_tokens=1000, downgrade_threshold=0.5)
    budget.record(Usage(600, 0))
    bridge.batch_rlm_query(["t1", "t2"])
    assert spawn.calls == [] and trace.subcalls[0].mode == "downgraded"


def test_batch_at_the_spent_root_answers_each_task_directly_and_past_the_time_limit_says_so():
    """A batch falls back as rlm_query does: at the root with its tokens spent, a direct answer for
    every task (issue 38); past the wall-clock limit none, each task told, nothing raised."""
    bridge, model, budget, trace, spawn = make(["direct a", "direct b", "direct c"], max_tokens=10)
    budget.record(Usage(10, 0))
    assert bridge.batch_rlm_query(["a", "b", "c"]) == ["direct a", "direct b", "direct c"]
    assert spawn.calls == [] and len(model.calls) == 3 and budget.final_answers == 3
    assert trace.subcalls[0].mode == "refused" and [c.mode for c in trace.subcalls[0].children] == ["direct"] * 3
    bridge, model, budget, trace, spawn = make(["never"], max_wall_s=0.0)
    answers = bridge.batch_rlm_query(["a", "b"])
    assert all(a.startswith("[no budget: time limit") for a in answers) and model.calls == []


def test_batch_with_its_own_budget_spent_answers_directly_on_the_parents():
    model = ScriptedChatModel(replies=["one", "two"])
    root = Budget(BudgetLimits(max_tokens=100_000))
    child = root.allocate(0.5, max_iterations=3)
    child.record(Usage(50_000, 0))
    trace = RLMTrace(task="child")
    bridge = Bridge(client=ModelClient(model, "scripted"), budget=child, trace=trace, spawn=FakeSpawn(),
                    sub_call_chars=50)
    assert bridge.batch_rlm_query(["t1", "t2"], ["c1", "c2"]) == ["one", "two"]
    assert [c.mode for c in trace.subcalls[0].children] == ["direct", "direct"] and root.spent.calls == 2


def test_batch_reports_a_failed_task_in_place():
    bridge, *_ = make(spawn=FakeSpawn(fail_on="b"))
    answers = bridge.batch_rlm_query(["a", "b"])
    assert answers[0] == "child answer: a" and answers[1].startswith("[error: RuntimeError: child crashed")


def test_batch_argument_checks():
    bridge, *_ = make()
    assert bridge.batch_rlm_query([]) == []
    with pytest.raises(ValueError, match="2 tasks but 1 contexts"):
        bridge.batch_rlm_query(["a", "b"], ["only one"])
    with pytest.raises(ValueError, match="unknown bridge call"):
        bridge("shell", {})


class _WindowedModel:
    """A chat model behind a server with a window of ``limit`` characters: a longer prompt is refused as
    llama.cpp refuses it (an HTTP 400 whose text says so)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.prompts = limit, []

    def invoke(self, messages, **options):
        from langchain_core.messages import AIMessage
        size = sum(len(str(m.content)) for m in messages)
        self.prompts.append(size)
        if size > self.limit:
            raise RuntimeError(f"Error code: 400 - request ({size} tokens) exceeds the available context size "
                               f"({self.limit} tokens), try increasing it")
        return AIMessage("FINAL(150)")


def test_a_prompt_refused_as_longer_than_the_window_is_sent_once_more_fitted():
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    model = _WindowedModel(limit=20_000)
    client = ModelClient(model, "local")
    messages = [SystemMessage("rules " * 200), HumanMessage("How many tickets? " * 10),
                *[m for i in range(6) for m in (AIMessage(f"```repl\nprint(x{i})\n```"), HumanMessage("out " * 2_000))]]
    text, _ = client.invoke(messages)
    assert text == "FINAL(150)" and len(model.prompts) == 2 and model.prompts[1] < 20_000 < model.prompts[0]
    with pytest.raises(RuntimeError, match="429"):  # any other error is raised as it is
        ModelClient(_Failing(), "local").invoke(messages)


class _Failing:
    def invoke(self, messages, **options):
        raise RuntimeError("Error code: 429 - slow down")
