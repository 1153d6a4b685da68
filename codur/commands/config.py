"""``codur config`` and ``codur trust``: the effective settings and where they came from, and
the repos whose own config file may choose every setting.

    codur config [--repo PATH] [--check]            every effective setting, its origin and trust level
    codur trust [PATH] [--revoke]                   let the repo's own config file set every setting

Exit codes: 0 done; 2 bad input (no such repo, no config file to trust, a setting that does
not parse, ``--check``: the database, a model endpoint or the embedded model cannot be used). Only Typer and Rich
at import time: ``codur --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from codur.commands.common import REPO, console, err, fail, repo_dir


def config_command(
    repo: Path = REPO,
    max_turns: int | None = typer.Option(None, help="As codur run's flag: Plan→Act→Verify cycles at most."),
    timeout: float | None = typer.Option(None, help="As codur run's flag: wall-clock limit, seconds."),
    model: str | None = typer.Option(None, "--model", help="As codur run's flag: model name at the endpoint."),
    base_url: str | None = typer.Option(None, "--base-url", metavar="URL", help="As codur run's flag: the endpoint."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", metavar="VAR",
                                           help="As codur run's flag: the variable holding the API key."),
    check: bool = typer.Option(False, "--check", help="Also try what the settings name: connect to the database "
                               "(create codur's tables), ask each model endpoint for its models, see whether the "
                               "embedded model can start; exit 2 when one cannot be used."),
) -> None:
    """Print every effective setting for the repo, where it came from (flag, env, file, default) and
    its level (``user``, ``repo``, ``repo (trusted)``, ``default``; a repo file's value that is
    not taken: ``ignored (untrusted repo)``), then the test command it gives (``tests:
    .venv/bin/python -m pytest (.venv)``). ``CODUR_*`` variables that are no setting and the repo
    file's ignored keys are named first. With ``--check``, the database, the model endpoints and
    the embedded model (when a role uses it) are tried and what they hold is said."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.config import CodurConfig, ConfigError, load_config
    from codur.config.origins import ignored_settings, origins, unknown_variables
    from codur.config.sources import find_config_files
    from codur.testing.command import resolve as resolve_tests

    root = repo_dir(repo)
    given = {"max_turns": max_turns, "timeout_s": timeout, "model": model, "base_url": base_url,
             "api_key_env": api_key_env}
    flags = {k: v for k, v in given.items() if v is not None}
    files = find_config_files(root)
    for warning in [*unknown_variables(CodurConfig), *ignored_settings(CodurConfig, files)]:
        console.print(Text(f"warning: {warning}", style="yellow"))
    try:
        config = load_config(root, **flags)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    where = " over ".join(f"{f.path} ({f.level})" for f in files) or "no config file"
    table = Table(title=f"codur config · {where}", title_justify="left")
    table.add_column("setting", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("from", overflow="fold")  # a user file's full path folds, never crops
    table.add_column("level", overflow="fold")
    for item in origins(config, flags, files):
        style = "dim" if item.origin == "default" else "yellow" if item.level.startswith("ignored") else ""
        table.add_row(Text(item.key), Text(item.value), Text(item.origin), Text(item.level),
                      style=style)  # no markup from values
    console.print(table)
    console.print(Text(f"tests: {resolve_tests(root, config.test_command).describe(root)}"))
    if check:
        _check(config)


def _check(config: object) -> None:
    """``codur config --check``: the database (connected, tables created, what it holds) and the
    models (:func:`_check_models`); exit 2 after saying which failed."""
    from codur.storage import StorageError, postgres_module, redact

    failed = False
    url = config.database()  # type: ignore[attr-defined]
    if url:
        try:
            found = postgres_module().check(url)
        except StorageError as exc:
            err.print(f"codur: check: {exc}", markup=False)
            failed = True
        else:
            console.print(Text(
                f"database {redact(url)}: PostgreSQL {found['server']}, database {found['database']} as "
                f"{found['user']}; tables ready: {', '.join(found['tables'])}; {found['runs']} runs "
                f"({found['resumable']} resumable), {found['batches']} batches ({found['batch_results']} "
                f"results), {found['sessions']} sessions"))
    else:
        console.print(Text("database: none set (runs are kept in each repo's .codur/)"))
    if not _check_models(config) or failed:
        raise typer.Exit(2)


def _check_models(config: object) -> bool:
    """Each model endpoint the roles call first (one request, then the model it serves when none is
    named) and, when a role's chain holds the embedded model, whether it can start here (without
    starting it: :func:`codur.llm.local.embedded_problem`; an attached ``local.server_url`` is asked
    as an endpoint). Says each; True when every one can be used. When none can, one more line says
    that no model can run."""
    import os

    from codur.config.endpoint import ModelChoiceError, served_model
    from codur.llm.factory import ROLES
    from codur.llm.local import embedded_problem
    from codur.llm.preflight import Endpoint, EndpointUnusable, check_endpoint, endpoints

    usable, failed = 0, 0
    named = endpoints(config)
    local = config.local  # type: ignore[attr-defined]
    embedded = any(p.base_url is None for r in ROLES for p in config.profiles_for(r, resolve=False))  # type: ignore[attr-defined]
    if embedded and local.server_url:
        named.append(Endpoint(local.server_url.rstrip("/"), "CODUR_API_KEY", "embedded (local.server_url)"))
    for endpoint in named:
        try:
            check_endpoint(endpoint)
            model = endpoint.model or served_model(endpoint.base_url, os.environ.get(endpoint.api_key_env),
                                                   endpoint.api_key_env)
        except (EndpointUnusable, ModelChoiceError) as exc:
            prefix = "" if isinstance(exc, ModelChoiceError) else "model endpoint "
            err.print(f"codur: check: {prefix}{exc}", markup=False)
            failed += 1
        else:
            console.print(Text(f"model endpoint {endpoint.base_url}: answers (key from {endpoint.api_key_env}); "
                               f"model {model}"))
            usable += 1
    if embedded and not local.server_url:
        if (problem := embedded_problem(local)) is None:
            console.print(Text(f"embedded model: available (xllamacpp installed; its model file in "
                               f"{local.cache_dir}, built on first start when missing; not started by the check)"))
            usable += 1
        else:
            err.print(f"codur: check: embedded model: {problem}", markup=False)
            failed += 1
    if not usable:
        err.print("codur: check: no model can run (with CODUR_FIXERS=mutation codur fixes what mutation search "
                  "can without one)", markup=False)
    return not failed


def trust_command(
    repo: Path = typer.Argument(Path("."), help="The repository whose codur.toml / \\[tool.codur] to trust."),
    revoke: bool = typer.Option(False, "--revoke", help="Forget the repo: its file's user-only settings are "
                                "ignored again."),
) -> None:
    """Trust the repo's own config file as it is now: its endpoint, key variable, sandbox and other
    user-only settings (:data:`codur.config.trust.USER_ONLY`) apply. Recorded with the file's
    SHA-256 in the user's config folder (``trusted.json``); a changed file is not trusted until
    trusted again. Exit 2: no such folder, no config file in it, or a file that does not parse."""
    from codur.config import CodurConfig, ConfigError
    from codur.config.sources import ConfigFileError, find_config_files
    from codur.config.trust import trust, trust_store_path

    root = repo_dir(repo)
    own = next((f for f in find_config_files(root) if f.kind != "user"), None)
    if revoke:
        trust(root, None)
        console.print(Text(f"{root}: not trusted; its config file's user-only settings are ignored"), soft_wrap=True)
        return
    if own is None:
        raise fail(f"{root} has no codur.toml and no [tool.codur] table in pyproject.toml: nothing to trust")
    try:
        own.check(CodurConfig)
    except (ConfigFileError, ConfigError) as exc:
        raise fail(str(exc)) from None
    keys = own.ignored(CodurConfig) if not own.trusted else []
    entry = trust(root, own.path)
    assert entry is not None
    console.print(Text(f"trusted {own.path} (sha256 {entry['sha256'][:12]}…, in {trust_store_path()})"
                       + (f"; now taken from it: {', '.join(keys)}" if keys else "")
                       + "; a change to the file needs `codur trust` again"), soft_wrap=True)
