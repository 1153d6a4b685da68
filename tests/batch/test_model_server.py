"""A local batch shares one embedded model server among its task processes."""

from __future__ import annotations

import pytest

from codur.batch.model_server import URL_ENV, needs_embedded_model, shared_model_server
from codur.batch.tasks import BatchTask
from codur.config.tables import LocalModelSettings
from codur.core.events.batch import BatchModelServer
from codur.llm import local


@pytest.fixture(autouse=True)
def no_endpoint(monkeypatch, tmp_path):
    for name in ("CODUR_BASE_URL", "CODUR_MODEL", URL_ENV, "CODUR_FIXERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no user settings file


def task(fixers=None) -> BatchTask:
    return BatchTask(id="t", repo="/tmp/x", task="fix it", fixers=fixers)


def test_only_tasks_that_may_call_the_embedded_model_need_the_server(monkeypatch):
    assert needs_embedded_model([task(["mutation"]), task()])  # the default fixers call a model
    assert needs_embedded_model([task(["mutation"]), task(["sampling"])])
    assert not needs_embedded_model([task(["mutation"]), task(["mutation"])])
    monkeypatch.setenv("CODUR_BASE_URL", "http://127.0.0.1:9/v1")  # an endpoint: no embedded model
    monkeypatch.setenv("CODUR_MODEL", "some-model")
    assert not needs_embedded_model([task()])
    monkeypatch.delenv("CODUR_BASE_URL")
    monkeypatch.delenv("CODUR_MODEL")
    monkeypatch.setenv(URL_ENV, "http://127.0.0.1:9/v1")  # a server is given already
    assert not needs_embedded_model([task()])


def test_a_mutation_only_batch_starts_no_server():
    with shared_model_server([task(["mutation"])], 2) as env:
        assert env == {}


def test_a_task_process_attaches_to_the_given_server_and_leaves_it_running(monkeypatch):
    monkeypatch.setattr(local, "_shared", None)
    server = local.shared_server(LocalModelSettings(server_url="http://127.0.0.1:8123/v1/"))
    assert isinstance(server, local.AttachedServer)
    assert server.base_url == "http://127.0.0.1:8123/v1"
    local.stop_shared_server()  # the run's end: nothing to stop, the batch owns the server
    assert local._shared is None


def test_an_embedded_server_that_cannot_start_is_reported_and_the_batch_goes_on(monkeypatch):
    def unavailable(self):
        raise local.LocalModelUnavailable("the embedded model needs package xllamacpp")

    monkeypatch.setattr(local.LocalModelServer, "start", unavailable)
    events = []
    with shared_model_server([task()], 2, events.append) as env:
        assert env == {}
    assert events == [BatchModelServer(error="the embedded model needs package xllamacpp")]
    assert dict(events[0]) == {"event_type": "batch.model_server",
                               "error": "the embedded model needs package xllamacpp"}


def test_the_server_has_a_slot_and_a_full_context_per_worker(monkeypatch):
    started = []

    def start(self):
        started.append(self.settings)
        self.port = 8124
        return self

    monkeypatch.setattr(local.LocalModelServer, "start", start)
    monkeypatch.setattr(local.LocalModelServer, "stop", lambda self: started.append("stopped"))
    events = []
    with shared_model_server([task()], 3, events.append) as env:
        assert env == {URL_ENV: "http://127.0.0.1:8124/v1"}
        assert started[0].parallel == 3 and started[0].n_ctx == 3 * LocalModelSettings().n_ctx
    assert started[-1] == "stopped"
    assert events[0]["slots"] == 3
