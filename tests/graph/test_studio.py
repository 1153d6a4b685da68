"""langgraph.json names an importable graph factory whose graph has no checkpointer (langgraph dev refuses one)."""

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


def test_langgraph_json_points_at_a_graph_factory():
    spec = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = spec["graphs"]["codur"].partition(":")
    module_spec = importlib.util.spec_from_file_location("studio_entry", ROOT / path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    graph = getattr(module, attr)()  # langgraph dev calls the factory for each run
    assert isinstance(graph, CompiledStateGraph)
    assert graph.checkpointer is None
    nodes = set(graph.get_graph().nodes)
    assert {"initialize", "observe", "plan", "delegate", "execute", "verify", "review", "patch", "done"} <= nodes


def test_studio_run_without_context_builds_a_default_one(invoice_repo, monkeypatch):
    """Studio passes no context object: the graph must still run (here to a budget stop, no model)."""
    from codur.graph.builder import studio_graph

    monkeypatch.setenv("CODUR_TIMEOUT_S", "0")
    final = studio_graph().invoke({"task": "make the failing tests pass", "repo": str(invoice_repo),
                                   "run_id": "studio-1", "status": "running"}, {"recursion_limit": 50})
    assert final["status"] == "timeout"
    assert final["nodes"] == ["initialize", "done"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """`langgraph dev` started once on langgraph.json in the project root; a langgraph-sdk client."""
    langgraph = Path(sys.executable).with_name("langgraph")
    if not langgraph.exists():
        pytest.skip("langgraph-cli is not installed (the dev extra installs it)")
    from langgraph_sdk import get_sync_client

    port = _free_port()
    log_path = tmp_path_factory.mktemp("studio") / "langgraph-dev.log"
    log = log_path.open("wb")
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
                    raise AssertionError(log_path.read_text()[-3000:]) from None
                time.sleep(0.5)
        assert assistants, "the server lists no assistant for graph codur"
        yield client, assistants[0]["assistant_id"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def test_langgraph_dev_serves_the_graph_and_runs_it_with_the_scripted_model(studio, invoice_repo):
    """A thread and a run made through langgraph-sdk on a temporary repo; the scripted model chosen by
    configuration (the run's context)."""
    client, _ = studio
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


def test_the_schema_endpoint_gives_studio_its_input_form(studio):
    """GET /assistants/{id}/schemas answers (pydantic reads the schemas on Python 3.11): the input
    form asks for task and repo, the context lists the settings."""
    client, assistant_id = studio
    schemas = client.assistants.get_schemas(assistant_id)
    assert schemas["input_schema"]["required"] == ["task", "repo"]
    assert {"task", "repo"} <= set(schemas["input_schema"]["properties"])
    assert {"status", "diff", "files_changed"} <= set(schemas["output_schema"]["properties"])
    assert {"model", "base_url", "fixers", "mock_replies"} <= set(schemas["context_schema"]["properties"])


def test_a_studio_run_without_a_repo_is_an_error_not_the_servers_folder(studio):
    client, _ = studio
    thread = client.threads.create()
    final = client.runs.wait(thread["thread_id"], "codur", input={"task": "make the failing tests pass"},
                             context={"mock_replies": ["Done."]})
    assert final["status"] == "error" and "'repo'" in final["reason"]
    assert final["nodes"] == ["initialize", "done"]
    assert not subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout \
        .count(".codur/runs")  # nothing written into the server's own folder


def _test_processes(repo: Path) -> int:
    """How many processes run pytest on ``repo`` (their command lines name it; /proc sees into
    bwrap's own PID namespace)."""
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        count += str(repo).encode() in line and b"pytest" in line
    return count


def test_cancelling_a_studio_run_stops_its_test_process(studio, tmp_path):
    """A run whose test hangs: cancelled through the SDK, its test processes are gone within
    seconds (the node's cancel sets the run's cancel event; the test runner kills its process
    group). Watched in /proc: the test's writes land in the run's copy-on-write layer, not in
    the repo, and it may run in bwrap's own PID namespace and /tmp."""
    client, _ = studio
    repo = tmp_path / "hang"
    repo.mkdir()
    (repo / "slow.py").write_text("def answer():\n    return 41\n")
    (repo / "test_slow.py").write_text(
        "import time\nfrom slow import answer\n\n\ndef test_answer():\n    for _ in range(600):\n"
        "        time.sleep(0.2)\n    assert answer() == 42\n")
    thread = client.threads.create()
    run = client.runs.create(thread["thread_id"], "codur", input={"task": "make the failing tests pass",
                                                                  "repo": str(repo)},
                             context={"mock_replies": ["Done."], "fixers": ["mutation"]})
    deadline = time.monotonic() + 60
    while not _test_processes(repo):
        assert time.monotonic() < deadline, "the run never started its tests"
        time.sleep(0.2)
    client.runs.cancel(thread["thread_id"], run["run_id"])
    t0 = time.monotonic()
    while _test_processes(repo):
        assert time.monotonic() - t0 < 30, "the hung test kept running after the run was cancelled"
        time.sleep(0.2)
    # about 0.5 s; without the cancel it runs on to observe's 10 s per-test limit
    assert time.monotonic() - t0 < 6, f"the test ran {time.monotonic() - t0:.1f}s after the cancel"
