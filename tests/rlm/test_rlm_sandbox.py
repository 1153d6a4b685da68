"""The sandbox worker: persistence, timeout, memory and CPU limits, secrets, output, bridge."""

import os
import sys

import pytest

from codur.rlm.budget import BudgetExceeded
from codur.rlm.sandbox import Sandbox, SandboxLimits


@pytest.fixture
def sandbox():
    with Sandbox("line one\nline two\n", limits=SandboxLimits(timeout_s=5)) as sb:
        yield sb


def test_context_and_variables_persist_between_blocks(sandbox):
    assert sandbox.context_info["context_len"] == 18
    assert sandbox.execute("n = len(context.splitlines())").error is None
    assert sandbox.execute("print(n * 10)").stdout == "20\n"
    assert sandbox.get_variable("n") == (True, "2")
    assert sandbox.get_variable("missing") == (False, None)


def test_trailing_expression_is_printed_like_a_repl(sandbox):
    assert sandbox.execute("x = 3\nx + 1").stdout == "4\n"
    assert sandbox.execute("None").stdout == ""


def test_errors_show_the_models_code_only(sandbox):
    result = sandbox.execute("a = 1\nb = a / 0")
    assert "ZeroDivisionError" in result.error
    assert 'File "<repl block' in result.error and "worker.py" not in result.error
    assert "SyntaxError" in sandbox.execute("def f(:").error


def test_final_called_in_code_ends_the_block_and_leaves_its_value(sandbox):
    result = sandbox.execute("x = 6 * 7\nFINAL_VAR(x)\nprint('after')")
    assert (result.submitted, result.error, result.stdout) == ("FINAL_VAR", None, "")
    assert sandbox.get_variable("final_answer") == (True, "42")
    assert sandbox.execute("print(1)").submitted is None


def test_timeout_kills_and_restarts_the_worker():
    with Sandbox("ctx", limits=SandboxLimits(timeout_s=1)) as sb:
        sb.execute("kept = 1")
        pid = sb.proc.pid
        result = sb.execute("while True:\n    pass")
        assert result.error.startswith("TimeoutError") and "variable is lost" in result.error
        assert 1 <= result.duration_s < 5
        assert sb.proc.pid != pid and sb.restarts == 1
        assert "NameError" in sb.execute("kept").error
        assert sb.execute("print(context)").stdout == "ctx\n"


def test_memory_limit():
    with Sandbox("", limits=SandboxLimits(memory_mb=256)) as sb:
        result = sb.execute("block = bytearray(1024 * 1024 * 1024)")
        assert "MemoryError" in result.error
        assert sb.execute("print('still alive')").stdout == "still alive\n"


def test_cpu_limit_ends_the_worker():
    with Sandbox("", limits=SandboxLimits(cpu_s=1, timeout_s=20)) as sb:
        result = sb.execute("while True:\n    pass")
        assert result.error.startswith("WorkerDied") and "SIGXCPU" in result.error
        assert sb.execute("print(1)").stdout == "1\n"


def test_no_api_keys_or_secrets_in_the_environment(monkeypatch):
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "MY_CREDENTIALS",
                 "DATABASE_URL", "GH_PAT"):
        monkeypatch.setenv(name, "do-not-leak")
    monkeypatch.setenv("LC_TIME", "C")
    with Sandbox("") as sb:
        out = sb.execute("import os\nprint(sorted(k for k, v in os.environ.items() if v == 'do-not-leak'))\n"
                         "print(os.environ.get('LC_TIME'), 'PATH' in os.environ)").stdout
        assert out == "[]\nC True\n"  # an allowlist: codur.sandbox.bwrap.ENV_ALLOW


def test_scratch_directory_and_host_untouched(sandbox):
    cwd, stdout = os.getcwd(), sys.stdout
    out = sandbox.execute("import os\nprint(os.getcwd())\nopen('note.txt', 'w').write('x')\nos.chdir('/')").stdout
    assert out.strip() == str(sandbox.scratch.resolve())
    assert (sandbox.scratch / "note.txt").exists()
    assert os.getcwd() == cwd and sys.stdout is stdout


def test_scratch_is_removed_on_close():
    sb = Sandbox("x").start()
    scratch = sb.scratch
    sb.close()
    assert not scratch.exists() and sb.proc is None


def test_output_truncation_has_a_visible_note():
    with Sandbox("", limits=SandboxLimits(max_output_chars=100)) as sb:
        result = sb.execute("print('y' * 5000)")
        assert result.stdout.startswith("y" * 75) and result.stdout.endswith("y" * 24 + "\n")
        assert "[output truncated: 5,001 characters in total, showing the first 75 and the last 25]" in result.stdout
        result = sb.execute("hits = ['ERROR x'] * 300\nprint(hits)\nprint(len(hits))")
        assert result.stdout.endswith("\n300\n")  # the count printed after the hits survives the capture


def test_stdout_writes_to_fd_1_cannot_break_the_protocol(sandbox):
    assert sandbox.execute("import os\nos.write(1, b'raw bytes\\n')\nprint('ok')").stdout == "ok\n"
    assert sandbox.execute("print(input())").error is not None  # stdin is /dev/null, not the protocol


def test_worker_death_is_reported_and_recovered(sandbox):
    result = sandbox.execute("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert result.error.startswith("WorkerDied") and "SIGKILL" in result.error
    assert sandbox.execute("print(2)").stdout == "2\n"


def test_bridge_calls_travel_to_the_parent():
    calls = []

    def bridge(name, args):
        calls.append((name, args))
        if args.get("prompt") == "spend":
            raise BudgetExceeded("no budget left")
        if args.get("prompt") == "boom":
            raise ValueError("bad")
        return f"answer to {args['prompt']}"

    with Sandbox("", bridge=bridge) as sb:
        assert sb.execute("print(llm_query('q1'))").stdout == "answer to q1\n"
        refused = sb.execute("try:\n    llm_query('spend')\nexcept BudgetExceeded as e:\n    print('caught', e)")
        assert refused.stdout == "caught no budget left\n"
        failed = sb.execute("llm_query('boom')")
        assert "BridgeError" in failed.error and "ValueError: bad" in failed.error
    assert [c[0] for c in calls] == ["llm_query"] * 3


def test_bridge_time_does_not_count_against_the_block_timeout():
    import time

    def slow_bridge(name, args):
        time.sleep(1.5)
        return "late"

    with Sandbox("", bridge=slow_bridge, limits=SandboxLimits(timeout_s=1)) as sb:
        assert sb.execute("print(llm_query('x'))").stdout == "late\n"


def test_helpers_default_to_the_context():
    text = "alpha\n# Intro\nhello needle\n# Usage\nrun it\n" + '{"k": [1, 2]}'
    with Sandbox(text) as sb:
        out = sb.execute("print(count_matches('needle'), len(chunk_text(size=10, overlap=0)) > 1)\n"
                         "print(search_context('needle', window=3))\n"
                         "print(sorted(extract_sections()))\n"
                         "print(extract_json(context))").stdout
    lines = out.splitlines()
    assert lines[0] == "1 True"
    assert "needle" in lines[1]
    assert lines[2] == "['', '# Intro', '# Usage']"
    assert lines[3] == "{'k': [1, 2]}"


def test_json_context():
    with Sandbox([{"id": 1}, {"id": 2}]) as sb:
        assert sb.context_info["context_type"] == "list"
        assert sb.execute("print(sum(d['id'] for d in context))").stdout == "3\n"


def test_printed_secrets_are_redacted():
    """Issue 21, item 2: what the REPL prints reaches the RLM model with its secrets redacted."""
    with Sandbox("") as sb:
        out = sb.execute("print('key', 'AKIA' + 'IOSFODNN7EXAMPLE')").stdout
    assert out == "key [REDACTED AWS Access Key]\n"
