import json

from codur.batch.tasks import read_tasks


def test_bad_lines_are_reported_with_their_number_and_skipped(tmp_path):
    lines = [
        json.dumps({"id": "a", "repo": "r", "task": "fix it", "max_turns": 3}),
        "{not json",
        json.dumps({"id": "b", "repo": "r"}),
        json.dumps({"id": "c", "repo": "r", "task": "t", "max_turns": "many"}),
        "",
        json.dumps({"id": "a", "repo": "r", "task": "again"}),
        json.dumps({"id": "d", "repo": "/x/r.git", "task": "t", "commit": "abc"}),
        json.dumps({"id": "e", "repo": "plain", "task": "t", "commit": "abc"}),
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(lines))
    tasks, errors = read_tasks(path)
    assert [t.id for t in tasks] == ["a", "d"]
    assert tasks[0].max_turns == 3
    assert [e.line for e in errors] == [2, 3, 4, 6, 8]
    assert "task" in errors[1].message
    assert "max_turns" in errors[2].message
    assert "duplicate" in errors[3].message


def test_a_relative_folder_repo_is_taken_from_the_task_file_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "tasks.jsonl"
    path.write_text("\n".join([json.dumps({"id": "a", "repo": "../r", "task": "t"}),
                               json.dumps({"id": "b", "repo": "/abs/r", "task": "t"}),
                               json.dumps({"id": "c", "repo": "https://h/r.git", "task": "t"})]))
    tasks, errors = read_tasks(path)
    assert errors == []
    assert [t.repo for t in tasks] == [str(tmp_path / "r"), "/abs/r", "https://h/r.git"]


def test_settings_must_be_codur_settings_other_than_the_task_fields(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join([
        json.dumps({"id": "a", "repo": "r", "task": "t", "settings": {"sample_format": "udiff", "token_budget": 9}}),
        json.dumps({"id": "b", "repo": "r", "task": "t", "settings": {"sample_formt": "udiff"}}),
        json.dumps({"id": "c", "repo": "r", "task": "t", "settings": {"fixers": ["agent"]}}),
    ]))
    tasks, errors = read_tasks(path)
    assert [t.id for t in tasks] == ["a"]
    assert tasks[0].settings == {"sample_format": "udiff", "token_budget": 9}
    assert [e.line for e in errors] == [2, 3]
    assert "not a codur setting: sample_formt" in errors[0].message
    assert "task's own field" in errors[1].message
