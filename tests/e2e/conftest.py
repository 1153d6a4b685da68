"""End-to-end tests run the real embedded model: skipped without the 'local' extra; the
model server is stopped after each module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def local_model_installed():
    pytest.importorskip("xllamacpp", reason="the embedded model needs the 'local' extra")
    from codur.llm.local import stop_shared_server

    yield
    stop_shared_server()
