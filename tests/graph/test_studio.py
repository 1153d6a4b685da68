"""langgraph.json names an importable compiled graph, without a checkpointer (langgraph dev refuses one)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

ROOT = Path(__file__).resolve().parents[2]


def test_langgraph_json_points_at_a_compiled_graph():
    spec = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = spec["graphs"]["codur"].partition(":")
    module_spec = importlib.util.spec_from_file_location("studio_entry", ROOT / path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    graph = getattr(module, attr)
    assert isinstance(graph, CompiledStateGraph)
    assert graph.checkpointer is None
    nodes = set(graph.get_graph().nodes)
    assert {"initialize", "observe", "plan", "delegate", "execute", "verify", "review", "patch", "done"} <= nodes


def test_studio_run_without_context_builds_a_default_one(invoice_repo, monkeypatch):
    """Studio passes no context object: the graph must still run (here to a budget stop, no model)."""
    from codur.graph.builder import graph

    monkeypatch.setenv("CODUR_TIMEOUT_S", "0")
    final = graph.invoke({"task": "make the failing tests pass", "repo": str(invoice_repo), "run_id": "studio-1",
                          "status": "running"}, {"recursion_limit": 50})
    assert final["status"] == "timeout"
    assert final["nodes"] == ["initialize", "done"]
