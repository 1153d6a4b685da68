"""Settings from the repo's config file (codur.toml, else pyproject [tool.codur]) over the user's
config.toml, merged key by key, below CODUR_* variables and flags;
`codur config` shows each value's origin; bad values are one line, exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codur.config import CodurConfig, ConfigError, load_config
from codur.config.origins import unknown_variables
from codur.config.sources import find_config_files
from codur.config.trust import trust


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No CODUR_*/OPENAI_* variables from the developer's shell; the user config dir is in tmp."""
    for name in list(os.environ):
        if name.startswith(("CODUR_", "OPENAI_")):
            monkeypatch.delenv(name)
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    return xdg


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def user_file(xdg: Path, text: str) -> Path:
    path = xdg / "codur" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)  # codur trust may have made it
    path.write_text(text)
    return path


NESTED = """
max_turns = 5
base_url = "http://127.0.0.1:9/v1"

[local]
n_ctx = 4096

[profiles.fast]
model = "small"
max_tokens = 256

[roles]
actor = ["fast"]
"""


def test_codur_toml_with_nested_sections(repo: Path):
    (repo / "codur.toml").write_text(NESTED)
    trust(repo, repo / "codur.toml")  # base_url, profiles and roles are user-only: the user trusts this repo
    config = load_config(repo)
    assert config.max_turns == 5 and config.base_url == "http://127.0.0.1:9/v1"
    assert config.local.n_ctx == 4096 and config.local.threads == 2  # the rest of [local] keeps its defaults
    assert config.profiles["fast"].model == "small" and config.profiles["fast"].max_tokens == 256
    assert [p.model for p in config.profiles_for("actor")] == ["small"]


def test_pyproject_tool_codur_table(repo: Path):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.codur]\nmax_turns = 4\n\n'
                                         '[tool.codur.local]\nthreads = 1\n')
    config = load_config(repo)
    assert (config.max_turns, config.local.threads) == (4, 1)
    assert [f.label for f in find_config_files(repo)] == ["pyproject.toml"]


def test_user_config_in_xdg_config_home(repo: Path, clean_env: Path):
    user_file(clean_env, "max_turns = 7\n[local]\nverbosity = 2\n")
    assert (load_config(repo).max_turns, load_config(repo).local.verbosity) == (7, 2)
    assert load_config().max_turns == 7  # without a repo: the user's file
    assert CodurConfig().max_turns == 3  # a plain CodurConfig() reads the environment alone


def test_the_repo_file_merges_over_the_user_file_key_by_key(repo: Path, clean_env: Path):
    user_file(clean_env, 'max_turns = 7\nsamples = 2\nbase_url = "http://127.0.0.1:9/v1"\n[local]\nthreads = 1\n')
    (repo / "pyproject.toml").write_text("[tool.codur]\nmax_turns = 4\n[tool.codur.local]\nn_ctx = 4096\n")
    config = load_config(repo)
    assert (config.max_turns, config.samples, config.base_url) == (4, 2, "http://127.0.0.1:9/v1")
    assert (config.local.n_ctx, config.local.threads) == (4096, 1)  # one table from each file
    (repo / "codur.toml").write_text("token_budget = 1000\n")
    config = load_config(repo)
    assert (config.max_turns, config.token_budget, config.samples) == (7, 1000, 2)  # codur.toml, not pyproject
    assert [f.kind for f in find_config_files(repo)] == ["codur.toml", "user"]
    (repo / "pyproject.toml").write_text('[project]\nname = "no codur table"\n')
    (repo / "codur.toml").unlink()
    assert load_config(repo).max_turns == 7  # a pyproject without [tool.codur] does not count
    assert [f.kind for f in find_config_files(repo)] == ["user"]


def test_an_unknown_codur_variable_is_named_with_the_nearest_setting():
    env = {"CODUR_MAX_TURN": "3", "CODUR_MODLE": "x", "CODUR_LOCAL__N_CTXX": "1", "CODUR_MAX_TURNS": "2",
           "CODUR_LOCAL__THREADS": "1", "CODUR_PROFILES__FAST__MODEL": "m", "CODUR_SANDBOX": "off",
           "CODUR_BASE_URL": "http://x", "CODUR_ZZZ_QQQ": "1", "PATH": "/bin"}
    assert unknown_variables(CodurConfig, env) == [
        "CODUR_LOCAL__N_CTXX is not a codur setting (did you mean CODUR_LOCAL__N_CTX?)",
        "CODUR_MAX_TURN is not a codur setting (did you mean CODUR_MAX_TURNS?)",
        "CODUR_MODLE is not a codur setting (did you mean CODUR_MODEL?)",
        "CODUR_ZZZ_QQQ is not a codur setting",
    ]


def test_every_codur_variable_the_code_reads_is_known():
    """A CODUR_* name quoted in codur's source (a variable it reads or sets) is a setting's variable
    or in OTHER_VARIABLES, so the warning never names a variable codur reads."""
    names = set()
    for path in (Path(__file__).resolve().parents[1] / "codur").rglob("*.py"):
        names |= set(re.findall(r"[\"'](CODUR_[A-Z][A-Z0-9_]*)[\"']", path.read_text()))
    assert "CODUR_SANDBOX" in names  # the walk found the source
    assert unknown_variables(CodurConfig, dict.fromkeys(names, "1")) == []


def test_fixers_from_a_variable_as_words_or_json(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CODUR_FIXERS", "mutation, sampling")
    assert load_config().fixers == ["mutation", "sampling"]
    monkeypatch.setenv("CODUR_FIXERS", '["agent"]')
    assert load_config().fixers == ["agent"]
    monkeypatch.setenv("CODUR_FIXERS", "mutation,magic")
    with pytest.raises(ConfigError, match="CODUR_FIXERS"):
        load_config()


def test_file_below_environment_below_flags(repo: Path, monkeypatch: pytest.MonkeyPatch):
    (repo / "codur.toml").write_text("max_turns = 5\ntimeout_s = 50\n[local]\nn_ctx = 4096\nthreads = 3\n")
    monkeypatch.setenv("CODUR_MAX_TURNS", "6")
    monkeypatch.setenv("CODUR_LOCAL__THREADS", "4")
    config = load_config(repo)
    assert (config.max_turns, config.timeout_s) == (6, 50.0)
    assert (config.local.n_ctx, config.local.threads) == (4096, 4)  # merged per key inside a section
    flagged = load_config(repo, max_turns=7, timeout_s=None)  # None: the flag was not given
    assert (flagged.max_turns, flagged.timeout_s) == (7, 50.0)


def config_table(repo: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
    from codur.commands.app import app

    result = CliRunner().invoke(app, ["config", "--repo", str(repo), *args], env={"COLUMNS": "250", **(env or {})})
    assert result.exit_code == 0, result.output
    rows = {}
    for line in result.stdout.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 4:
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def test_codur_config_shows_each_value_and_its_origin(repo: Path, clean_env: Path):
    (repo / "codur.toml").write_text(NESTED)
    trust(repo, repo / "codur.toml")
    rows = config_table(repo, "--timeout", "30", env={"CODUR_LOCAL__THREADS": "4", "CODUR_API_KEY": "sk-secret-1"})
    assert rows["max_turns"] == ("5", "codur.toml")
    assert rows["local.n_ctx"] == ("4096", "codur.toml")
    assert rows["profiles.fast.model"] == ("small", "codur.toml")
    assert rows["profiles.fast.temperature"] == ("0.0", "default")
    assert rows["roles.actor"] == ("['fast']", "codur.toml")
    assert rows["local.threads"] == ("4", "env CODUR_LOCAL__THREADS")
    assert rows["timeout_s"] == ("30.0", "flag --timeout")
    assert rows["token_budget"] == ("300000", "default")
    assert rows["api_key"] == ("********", "env CODUR_API_KEY")

    user_file(clean_env, "samples = 2\n")
    (repo / "codur.toml").unlink()
    rows = config_table(repo, "--max-turns", "9", env={"OPENAI_BASE_URL": "http://x/v1"})
    assert rows["samples"] == ("2", str(clean_env / "codur" / "config.toml"))
    assert rows["max_turns"] == ("9", "flag --max-turns")
    assert rows["base_url"] == ("http://x/v1", "env OPENAI_BASE_URL")


def test_secrets_never_printed(repo: Path):
    from codur.commands.app import app

    (repo / "codur.toml").write_text('api_key = "sk-from-file"\n')
    assert load_config(repo).api_key is None  # user-only: an untrusted repo file's key is not sent
    trust(repo, repo / "codur.toml")
    result = CliRunner().invoke(app, ["config", "--repo", str(repo)], env={"COLUMNS": "250"})
    assert result.exit_code == 0 and "sk-from-file" not in result.output
    assert load_config(repo).api_key.get_secret_value() == "sk-from-file"


def codur(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codur.commands", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ})


def one_line(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("kind", ["codur.toml", "pyproject", "user"])
def test_an_invalid_value_is_one_line_naming_file_and_key_and_exit_2(kind: str, repo: Path, clean_env: Path):
    if kind == "codur.toml":
        (repo / "codur.toml").write_text('max_turns = "abc"\n')
        expected = "codur.toml: max_turns: Input should be a valid integer"
    elif kind == "pyproject":
        (repo / "pyproject.toml").write_text('[tool.codur.local]\nn_ctx = "big"\n')
        expected = "pyproject.toml: tool.codur.local.n_ctx: Input should be a valid integer"
    else:
        path = user_file(clean_env, "timeout_s = -3\n")
        expected = f"{path}: timeout_s: Input should be greater than or equal to 0"
    with pytest.raises(ConfigError, match="^" + re.escape(expected)):
        load_config(repo)
    # the main command refuses before the run starts, as `codur config` does
    proc = codur("make the failing tests pass", "--repo", str(repo), "--dry-run")
    assert proc.returncode == 2 and one_line(proc).startswith(f"codur: {expected}"), proc.stderr
    assert not (repo / ".codur").exists()
    proc = codur("config", "--repo", str(repo))
    assert proc.returncode == 2 and one_line(proc).startswith(f"codur: {expected}")


def test_not_valid_toml_and_env_over_a_bad_file_value(repo: Path, monkeypatch: pytest.MonkeyPatch):
    (repo / "codur.toml").write_text("max_turns = \n")
    with pytest.raises(ConfigError, match=r"^codur.toml: not valid TOML \(.*line 1"):
        load_config(repo)
    (repo / "codur.toml").write_text('max_turns = "abc"\n')
    monkeypatch.setenv("CODUR_MAX_TURNS", "x")  # the environment's value is the one validated: it is named
    with pytest.raises(ConfigError, match=r"^CODUR_MAX_TURNS: Input should be a valid integer"):
        load_config(repo)
    monkeypatch.setenv("CODUR_MAX_TURNS", "2")
    assert load_config(repo).max_turns == 2


def test_a_key_that_is_not_a_setting_is_refused_with_a_suggestion(repo: Path):
    (repo / "codur.toml").write_text('max_turn = 3\n[local]\nnctx = 3\n[profiles.fast]\nmodle = "x"\n')
    with pytest.raises(ConfigError) as info:
        load_config(repo)
    assert str(info.value) == ("codur.toml: not a codur setting: local.nctx (did you mean n_ctx?), "
                               "max_turn (did you mean max_turns?), profiles.fast.modle (did you mean model?)")
    (repo / "codur.toml").unlink()
    (repo / "pyproject.toml").write_text("[tool.codur]\ntoken_budgett = 5\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: not a codur setting: tool.codur.token_budgett "):
        load_config(repo)


def test_the_file_applies_to_a_real_run_below_env_and_flags(invoice_repo: Path, monkeypatch):
    """A run on examples/invoice whose edits never pass: the turns it gets follow file < env < flag
    (the engine reads the repo's file when the caller gives no config)."""
    import json as _json

    from codur.engine import MockProvider, RunRequest, run

    repo = invoice_repo
    (repo / "codur.toml").write_text("max_turns = 2\nrepair = false\ncritic = false\nretry_base_delay_s = 0\n")
    wrong = "```json\n" + _json.dumps({"name": "replace_in_file", "arguments": {
        "path": "billing.py", "old": "VAT_PERCENT = 20", "new": "VAT_PERCENT = 21"}}) + "\n```"
    plan = '{"task_type": "code_fix", "steps": []}'

    def turns(**flags) -> int:
        replies = [wrong, "done", "done", "done", "done", "done"]
        result = run(RunRequest(input="make the failing tests pass", repo=repo, **flags),
                     models=MockProvider(replies, roles={"planner": [plan] * 3}))
        assert result.reason in ("max_turns", "stuck"), result.reason
        assert result.turns <= result.metadata.limits["max_turns"]
        return result.metadata.limits["max_turns"]

    assert turns() == 2
    monkeypatch.setenv("CODUR_MAX_TURNS", "1")
    assert turns() == 1
    assert turns(max_turns=2) == 2
