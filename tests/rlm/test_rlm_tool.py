"""The ask_codebase tool: repo files as the context, refused globs, the answer through the ToolExecutor."""

import tempfile
from pathlib import Path

import pytest

from codur.llm import ScriptedChatModel
from codur.sandbox.bwrap import bwrap_problem
from codur.tools import REGISTRY, TaskType, ToolExecutor, list_tools_for_tasks
from codur.tools.context import ToolContext, ToolError
from codur.tools.executor import ToolSettings
from codur.tools.journal import ChangeJournal
from codur.tools.rlm import load_repo_context


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "retry.py").write_text("MAX_RETRIES = 5\n")
    (root / "pkg" / "app.py").write_text("from pkg.retry import MAX_RETRIES\n")
    (root / "README.md").write_text("# demo\n")
    (root / ".env").write_text("OPENAI_API_KEY=sk-secret\n")
    (root / "blob.py").write_bytes(b"\0\1\2")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("generated = True\n")
    return root


def ctx_for(root: Path, **kw) -> ToolContext:
    return ToolContext(root=root.resolve(), journal=ChangeJournal(root.resolve(), None), **kw)


def test_registered_for_analysis_and_explanation():
    spec = REGISTRY.get("ask_codebase")
    assert spec is not None and spec.scenarios == {TaskType.CODE_ANALYSIS, TaskType.EXPLANATION}
    assert spec in list_tools_for_tasks([TaskType.EXPLANATION])
    assert "recursive language model" in spec.summary and len(spec.summary) <= 110


def test_context_holds_visible_text_files_under_headers(repo):
    context, included, left_out = load_repo_context(ctx_for(repo), ["**/*.py"])
    assert included == 2 and left_out == 0
    assert "=== pkg/retry.py ===\nMAX_RETRIES = 5\n" in context
    assert "gen.py" not in context and "blob.py" not in context  # gitignored, binary
    everything, _, _ = load_repo_context(ctx_for(repo), ["*"])
    assert "sk-secret" not in everything and "README.md" in everything
    docs, n, _ = load_repo_context(ctx_for(repo), ["pkg/"])
    assert n == 2 and "README" not in docs


def test_context_size_is_capped(repo):
    _, included, left_out = load_repo_context(ctx_for(repo), ["**/*.py"], max_bytes=20)
    assert (included, left_out) == (1, 1)


@pytest.mark.parametrize("pattern", ["../*", "/etc/passwd", "~/x", "pkg/../../x", "a\\..\\b"])
def test_globs_escaping_the_repo_are_refused(repo, pattern):
    with pytest.raises(ToolError, match="escapes the repository"):
        load_repo_context(ctx_for(repo), [pattern])


def test_no_match_is_a_readable_error(repo):
    with pytest.raises(ToolError, match="no text file"):
        load_repo_context(ctx_for(repo), ["**/*.rs"])


def test_answers_through_the_tool_executor(repo, tmp_path, monkeypatch):
    from codur.rlm import model

    monkeypatch.setattr(model, "window_tokens", lambda **flags: (256, 512))  # no room: the REPL runs
    model = ScriptedChatModel(replies=[
        "```repl\nprint(search_context('MAX_RETRIES =', window=5))\n```", "FINAL(5, in pkg/retry.py)",
        "```repl\nprint(grep('MAX_RETRIES ='))\n```", "FINAL(5, in pkg/retry.py)"])  # "how many": a second program
    executor = ToolExecutor(repo, run_dir=tmp_path / "run", model_factory=lambda: model)
    result = executor.execute("ask_codebase", {"question": "How many retries?", "paths": ["pkg/*.py"]})
    assert result.ok, result.output
    assert result.output.startswith("5, in pkg/retry.py")
    assert "2 files" in result.output and "answer source final_direct" in result.output and "path repl" in result.output
    assert list((tmp_path / "run" / "rlm").glob("rlm-*.json"))
    refused = executor.execute("ask_codebase", {"question": "q", "paths": ["../outside/*"]})
    assert not refused.ok and "escapes the repository" in refused.output


def test_a_short_repo_context_is_answered_directly(repo, tmp_path):
    """Issue 40, item 4: the two small files fit the configured (embedded) model's window: one call."""
    model = ScriptedChatModel(replies=["MAX_RETRIES is 5."])
    executor = ToolExecutor(repo, run_dir=tmp_path / "run", model_factory=lambda: model)
    result = executor.execute("ask_codebase", {"question": "How many retries?", "paths": ["pkg/*.py"]})
    assert result.ok and result.output.startswith("MAX_RETRIES is 5.") and "path direct" in result.output
    assert len(model.calls) == 1 and "MAX_RETRIES = 5" in str(model.calls[0][0].content)


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bwrap: {bwrap_problem()}")
def test_the_repls_code_reads_no_file_of_the_repo_by_its_absolute_path(monkeypatch, tmp_path):
    """A repo outside the private /tmp and home: code the model writes (or a file of the repo tells it to write)
    printed the repo's .env and its remote's token by their absolute paths (masked since as empty and cleaned).
    The REPL's root is now the system and the interpreter alone (codur.sandbox.sysview): the repo's files reach
    it only as the question's context, whether the run allows secrets or not."""
    from codur.rlm import model as rlm_model

    monkeypatch.setattr(rlm_model, "window_tokens", lambda **flags: (256, 512))  # no room: the REPL runs
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:  # outside /tmp and home
        root = Path(place) / "repo"
        (root / ".git").mkdir(parents=True)
        (root / "app.py").write_text("PASSWORD_FILE = '.env'\n")
        (root / ".env").write_text("DB_PASSWORD=hunter2-plain\n")
        (root / ".git" / "config").write_text('[remote "origin"]\n\turl = https://kim:hunter3-plain@git.example/app\n')
        block = "```repl\n" + "".join(
            f"try:\n    print(open({str(path)!r}).read())\nexcept OSError as exc:\n    print('unseen', {path.name!r})\n"
            for path in (root / ".env", root / ".git" / "config")) + "```"
        for allow in (False, True):
            model = ScriptedChatModel(replies=[block, "FINAL(done)"] * 3)
            executor = ToolExecutor(root, run_dir=tmp_path / f"run-{allow}", model_factory=lambda m=model: m,
                                    settings=ToolSettings(allow_secrets=allow))
            result = executor.execute("ask_codebase", {"question": "What is in the files?", "paths": ["*.py"]})
            assert result.ok, result.output
            printed = "".join(str(m.content) for call in model.calls for m in call)
            assert "unseen .env" in printed and "unseen config" in printed, printed[-600:]
            assert "hunter2-plain" not in printed and "hunter3-plain" not in printed
        assert (root / ".env").read_text() == "DB_PASSWORD=hunter2-plain\n"
