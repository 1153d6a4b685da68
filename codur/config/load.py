"""Load the settings for a repo: flags over ``CODUR_*`` variables over the repo's config file
over the user's over the defaults, with one-line errors (:func:`load_config`)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from pydantic import ValidationError
from pydantic_settings import SettingsError

from codur.config.origins import env_variable, ignored_settings, where
from codur.config.settings import CodurConfig, ConfigError
from codur.config.sources import ConfigFileError, find_config_files, reading
from codur.testing.command import TestCommandError
from codur.testing.command import resolve as resolve_tests

_WARNED: set[str] = set()


def _warn_ignored(files: tuple) -> None:
    """Log once per process and file content the repo file keys that were ignored (untrusted)."""
    for warning in ignored_settings(CodurConfig, files):
        if warning not in _WARNED:
            _WARNED.add(warning)
            logging.getLogger("codur").warning("codur: warning: %s", warning)



def load_config(repo: Path | None = None, **flags: object) -> CodurConfig:
    """CodurConfig for ``repo``: ``flags`` over ``CODUR_*`` variables over the repo's config file
    over the user's (:func:`codur.config.sources.find_config_files`; merged key by key) over the
    defaults. One-line errors. The settings a repo file may not choose (the endpoint, the key
    variable, the sandbox's allowances: :data:`codur.config.trust.USER_ONLY`) are dropped from
    an untrusted repo file, with one warning per file on the ``codur`` logger.

    Args:
        repo: the repository whose ``codur.toml`` / ``pyproject.toml [tool.codur]`` applies.
        flags: settings given on the command line, e.g. ``max_turns=5`` (None values are ignored).

    Raises:
        ConfigError: a value does not parse or is out of range, e.g.
            ``CODUR_MAX_TURNS: Input should be a valid integer (got 'abc')``,
            ``codur.toml: max_turns: Input should be a valid integer (got 'abc')``,
            ``pyproject.toml: tool.codur.local.n_ctx: Input should be a valid integer (got 'big')``,
            ``CODUR_PROFILES: not valid JSON (Expecting value: line 1 column 1 (char 0))`` or
            ``codur.toml: not valid TOML (...)`` or
            ``codur.toml: not a codur setting: max_turn (did you mean max_turns?)``;
            a test command whose program is not found: ``--test-cmd: command not found: pytset``.
    """
    given = {k: v for k, v in flags.items() if v is not None}
    files = find_config_files(repo)
    try:
        for file in files:
            file.check(CodurConfig)
        _warn_ignored(files)
        with reading(files):
            config = CodurConfig(**given)
        if repo is not None and config.test_command is not None:
            try:
                resolve_tests(repo, config.test_command)
            except TestCommandError as exc:
                raise ConfigError(f"{where(CodurConfig, ('test_command',), given, files)}: {exc}") from None
        return config
    except ConfigFileError as exc:
        raise ConfigError(str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        if isinstance(cause := (first.get("ctx") or {}).get("error"), ConfigError):
            raise ConfigError(str(cause)) from None  # a cross-field check already names its field
        got = f" (got {first['input']!r})" if isinstance(first.get("input"), str | int | float) else ""
        why = first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{where(CodurConfig, first['loc'], given, files)}: {why}{got}") from None
    except SettingsError as exc:
        field = re.search(r'field "([^"]+)"', str(exc))
        name = env_variable((field.group(1),)) if field else "CODUR_*"
        cause = exc.__cause__
        why = f"not valid JSON ({cause})" if isinstance(cause, json.JSONDecodeError) else str(cause or exc)
        raise ConfigError(f"{name}: {why}") from None
