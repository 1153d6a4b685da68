"""The setting ``database_url``: CODUR_DATABASE_URL, or ``[storage] url`` in a config file; a run
whose database cannot be reached stops at once with one line (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from codur.config import CodurConfig, ConfigError, load_config
from codur.config.origins import unknown_variables
from codur.config.trust import trust


def test_database_url_from_the_environment_or_the_storage_table(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("CODUR_DATABASE_URL", raising=False)
    assert CodurConfig().database() is None
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "codur.toml").write_text('[storage]\nurl = "postgresql://team:pw@db.internal:5432/codur"\n')
    assert load_config(tmp_path).database() is None  # where runs go is user-only: a repo file needs codur trust
    trust(tmp_path, tmp_path / "codur.toml")
    config = load_config(tmp_path)
    assert config.database() == "postgresql://team:pw@db.internal:5432/codur"
    assert "pw" not in str(config.database_url) and "pw" not in repr(config)  # a secret, like the API key
    monkeypatch.setenv("CODUR_DATABASE_URL", "postgresql://localhost/other")
    assert load_config(tmp_path).database() == "postgresql://localhost/other"  # the environment wins
    assert unknown_variables(CodurConfig) == []  # a declared setting, not an unknown CODUR_* variable


@pytest.mark.parametrize("where", ["env", "file"])
def test_a_url_that_is_not_postgresql_is_a_one_line_config_error(tmp_path: Path, monkeypatch, where):
    monkeypatch.delenv("CODUR_DATABASE_URL", raising=False)
    if where == "env":
        monkeypatch.setenv("CODUR_DATABASE_URL", "mysql://localhost/x")
        expected = "CODUR_DATABASE_URL: not a PostgreSQL URL"
    else:
        (tmp_path / "codur.toml").write_text('[storage]\nurl = "sqlite:///x.db"\n')
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
        trust(tmp_path, tmp_path / "codur.toml")
        expected = "codur.toml: storage.url: not a PostgreSQL URL"
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path)


def test_a_run_whose_database_is_unreachable_stops_with_one_line(invoice_repo: Path):
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install codur[postgres])")
    from codur.commands.app import app

    env = {"CODUR_DATABASE_URL": "postgresql://u:s3cret@127.0.0.1:1/none", "CODUR_FIXERS": "mutation"}
    done = CliRunner().invoke(app, ["run", "make the failing tests pass", "--repo", str(invoice_repo)], env=env)
    assert done.exit_code == 2, done.output
    assert "cannot connect" in done.output and "s3cret" not in done.output
    assert (invoice_repo / "billing.py").read_text() == (
        Path(__file__).resolve().parents[2] / "examples" / "invoice" / "billing.py").read_text()
