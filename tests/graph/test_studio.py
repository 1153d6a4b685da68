"""langgraph.json names an importable compiled graph, without a checkpointer (langgraph dev refuses one)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_langgraph_dev_serves_the_graph_and_runs_it_with_the_scripted_model(invoice_repo, tmp_path):
    """`langgraph dev` started on langgraph.json in the project root; a thread and a run made through
    langgraph-sdk on a temporary repo; the scripted model chosen by configuration (the run's context)."""
    langgraph = Path(sys.executable).with_name("langgraph")
    if not langgraph.exists():
        pytest.skip("langgraph-cli is not installed (the dev extra installs it)")
    from langgraph_sdk import get_sync_client

    port = _free_port()
    log = (tmp_path / "langgraph-dev.log").open("wb")
    server = subprocess.Popen([str(langgraph), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1",
                               "--port", str(port)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                              env={**os.environ, "LANGGRAPH_NO_ANALYTICS": "1"}, start_new_session=True)
    try:
        client = get_sync_client(url=f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            try:
                assistants = client.assistants.search(graph_id="codur")
                break
            except Exception:  # noqa: BLE001 - not up yet
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "langgraph-dev.log").read_text()[-3000:]) from None
                time.sleep(0.5)
        assert assistants, "the server lists no assistant for graph codur"
        fix = "```json\n" + json.dumps({"name": "replace_in_file", "arguments": {
            "path": "billing.py", "old": "if quantity > BULK_THRESHOLD:", "new": "if quantity >= BULK_THRESHOLD:"}}) \
            + "\n```"
        thread = client.threads.create()
        final = client.runs.wait(thread["thread_id"], "codur",
                                 input={"task": "make the failing tests pass", "repo": str(invoice_repo)},
                                 context={"mock_replies": [fix, "Fixed."], "critic": False, "repair": False})
        assert final["status"] == "success" and final["reason"] == "verified"
        assert final["nodes"] == ["initialize", "observe", "plan", "delegate", "execute", "verify", "review", "done"]
        assert "+    if quantity >= BULK_THRESHOLD:" in final["diff"]
        assert "if quantity >= BULK_THRESHOLD:" in (invoice_repo / "billing.py").read_text()
        state = client.threads.get_state(thread["thread_id"])
        assert state["values"]["status"] == "success" and state["next"] == []
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()
