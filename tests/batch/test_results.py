import json

import pytest

from codur.batch.results import JsonlResults, open_results


def test_append_flushes_each_line_and_reads_back(tmp_path):
    out = tmp_path / "sub" / "RESULTS.jsonl"
    store = JsonlResults(out)
    store.append({"id": "a", "status": "solved"})
    # flushed before close: another reader sees it
    assert JsonlResults(out).done_ids() == {"a"}
    store.append({"id": "b", "status": "failed"})
    store.close()
    assert [r["id"] for r in JsonlResults(out).records()] == ["a", "b"]


def test_torn_last_line_is_ignored_and_next_append_starts_fresh(tmp_path):
    out = tmp_path / "RESULTS.jsonl"
    out.write_text(json.dumps({"id": "a"}) + "\n" + '{"id": "b", "sta')
    store = JsonlResults(out)
    assert store.done_ids() == {"a"}
    store.append({"id": "c"})
    store.close()
    assert store.done_ids() == {"a", "c"}


def test_record_without_id_is_refused(tmp_path):
    store = JsonlResults(tmp_path / "r.jsonl")
    with pytest.raises(ValueError, match="id"):
        store.append({"status": "solved"})
    assert store.records() == []


def test_open_results_without_url_is_jsonl_and_with_url_needs_postgres(tmp_path):
    assert isinstance(open_results(tmp_path / "r.jsonl", None), JsonlResults)
    try:
        import codur.storage.postgres  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match=r"codur\[postgres\]"):
            open_results(tmp_path / "r.jsonl", "postgresql://localhost/x")
