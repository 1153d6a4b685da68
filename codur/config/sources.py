"""Where codur's settings come from: the repo's config file, the user's, and each value's origin.

Precedence, highest first: command-line flags, ``CODUR_*`` environment variables, the
repo's config file, the user's config file, the defaults. Files merge key by key (a
table such as ``[local]`` too): a repo file that sets ``max_turns`` keeps the user file's
``base_url``. The repo's file is the first of

1. ``<repo>/codur.toml``,
2. the ``[tool.codur]`` table of ``<repo>/pyproject.toml`` (only when it has that table);

the user's is ``$XDG_CONFIG_HOME/codur/config.toml`` (default ``~/.config/codur/config.toml``).
Both are read by pydantic-settings' TOML sources. The repo is only known at run time:
:func:`codur.config.load_config` finds the files and sets them in a context variable that
``CodurConfig.settings_customise_sources`` reads, so a plain ``CodurConfig()`` reads the
environment alone. A ``CODUR_*`` variable that is no setting is reported by
:func:`unknown_variables` (the CLI warns with the nearest setting's variable).

A repo's file is someone else's: the settings that choose where code and secrets go or how
much the sandbox allows are not read from it unless the user trusts the repo
(:mod:`codur.config.trust`, ``codur trust PATH``); :func:`ignored_settings` names what was
dropped, and :func:`origins` gives each value's level (``user``, ``repo``, ``default``).
"""

from __future__ import annotations

import difflib
import os
import tomllib
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, BaseModel
from pydantic_settings import (
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    TomlConfigSettingsSource,
)

from codur.config.tables import with_runtime
from codur.config.trust import is_trusted, user_only_keys, without

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

#: Flags of ``codur run`` / ``codur config`` by the setting they override.
FLAGS = {"max_turns": "--max-turns", "timeout_s": "--timeout", "dry_run": "--dry-run", "test_command": "--test-cmd",
         "tests": "--tests", "model": "--model", "base_url": "--base-url", "api_key_env": "--api-key-env",
         "max_cost_usd": "--max-cost"}


class ConfigFileError(ValueError):
    """A config file is not valid TOML; the message is one line naming the file."""


@dataclass(frozen=True)
class ConfigFile:
    """The config file in use: its path, its kind, the name errors and origins give it, and
    whether it is trusted (the user's file always; a repo's only after ``codur trust``: an
    untrusted repo file's user-only settings are dropped, :mod:`codur.config.trust`)."""

    path: Path
    kind: Literal["codur.toml", "pyproject", "user"]
    trusted: bool = True

    @property
    def level(self) -> str:
        """``user``, ``repo`` or ``repo (trusted)``: whose file this is, as ``codur config`` shows it."""
        return "user" if self.kind == "user" else "repo (trusted)" if self.trusted else "repo"

    @property
    def label(self) -> str:
        """``codur.toml``, ``pyproject.toml`` (repo files) or the user file's full path."""
        return self.path.name if self.kind != "user" else str(self.path)

    def key(self, path: tuple[str, ...]) -> str:
        """A setting's dotted key as written in this file, e.g. ``tool.codur.local.n_ctx`` in pyproject."""
        return ".".join((("tool", "codur") if self.kind == "pyproject" else ()) + path)

    def raw_source(self, settings_cls: type[BaseSettings]) -> PydanticBaseSettingsSource:
        """The pydantic-settings source reading every key of this file (its ``[runtime]`` table read
        as the settings it names: :func:`codur.config.tables.with_runtime`)."""
        header = ("tool", "codur") if self.kind == "pyproject" else None
        return _FileSource(settings_cls, self.path, toml_table_header=header, where=self)

    def source(self, settings_cls: type[BaseSettings]) -> PydanticBaseSettingsSource:
        """The source codur's settings read: every key of a trusted file; an untrusted repo file's
        without the user-only keys (:func:`codur.config.trust.user_only_keys`)."""
        raw = self.raw_source(settings_cls)
        return raw if self.trusted else _WithoutUserOnly(settings_cls, raw)

    def ignored(self, settings_cls: type[BaseSettings]) -> list[str]:
        """The dotted keys of this file that are ignored (user-only keys of an untrusted repo file)."""
        return [] if self.trusted else user_only_keys(field_names(settings_cls, self.raw_source(settings_cls)()))

    def check(self, settings_cls: type[BaseSettings]) -> None:
        """Raise ConfigFileError (one line naming the file) when the file is not valid TOML or
        sets a key that is not a setting (a typo would otherwise be ignored)."""
        try:
            tomllib.loads(self.path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
            raise ConfigFileError(f"{self.label}: not valid TOML ({exc})") from None
        unknown = unknown_keys(settings_cls, self.raw_source(settings_cls)())
        if unknown:
            keys = ", ".join(sorted(self.key(tuple(k.split("."))) for k in unknown))
            raise ConfigFileError(f"{self.label}: not a codur setting: {keys}")


class _FileSource(TomlConfigSettingsSource):
    """A config file's TOML source whose ``[runtime]`` table sets the settings it names."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path, *, toml_table_header: tuple[str, ...] | None,
                 where: ConfigFile) -> None:
        self._where = where
        super().__init__(settings_cls, path, toml_table_header=toml_table_header)

    def __call__(self) -> dict[str, Any]:
        try:
            return with_runtime(super().__call__(), f"{self._where.label}: {self._where.key(('runtime',))}")
        except ValueError as exc:
            raise ConfigFileError(str(exc)) from None


class _WithoutUserOnly(PydanticBaseSettingsSource):
    """A repo file's source without the keys a repo file may not set."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource) -> None:
        super().__init__(settings_cls)
        self.inner = inner

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        values = field_names(self.settings_cls, self.inner())
        return without(values, user_only_keys(values))


def field_names(settings_cls: type[BaseSettings], values: dict) -> dict:
    """``values`` (a source's) keyed by field name: the TOML source keys an aliased field by its
    first alias (``CODUR_BASE_URL`` for ``base_url``)."""
    aliases = {choice: name for name, field in settings_cls.model_fields.items()
               if isinstance(field.validation_alias, AliasChoices)
               for choice in field.validation_alias.choices if isinstance(choice, str)}
    return {aliases.get(k, k): v for k, v in values.items()}


def unknown_keys(model: type[BaseModel], values: dict, prefix: tuple[str, ...] = ()) -> list[str]:
    """Keys of ``values`` (a file's table) that are not settings of ``model``, nested tables
    included, each as ``dotted.key`` with ``(did you mean ...?)`` when one is close."""
    names = set(model.model_fields)
    names |= {c for f in model.model_fields.values() if isinstance(f.validation_alias, AliasChoices)
              for c in f.validation_alias.choices if isinstance(c, str)}
    out = []
    for key, value in values.items():
        path = (*prefix, str(key))
        field = model.model_fields.get(key)
        if key not in names:
            close = difflib.get_close_matches(str(key), sorted(model.model_fields), n=1)
            out.append(".".join(path) + (f" (did you mean {close[0]}?)" if close else ""))
        elif field is not None and isinstance(value, dict):
            inner, args = field.annotation, typing.get_args(field.annotation)
            if is_model(inner):
                out += unknown_keys(inner, value, path)
            elif typing.get_origin(inner) is dict and len(args) == 2 and is_model(args[1]):
                for name, table in value.items():
                    if isinstance(table, dict):
                        out += unknown_keys(args[1], table, (*path, str(name)))
    return out


def is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/codur/config.toml``, ``~/.config/codur/config.toml`` without it."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "codur" / "config.toml"


def find_config_files(repo: Path | None) -> tuple[ConfigFile, ...]:
    """The config files for ``repo``, highest precedence first: the repo's (``codur.toml``, else a
    ``pyproject.toml`` with a ``[tool.codur]`` table; trusted when ``codur trust`` recorded it as
    it is now), then the user's; each only when it exists. ``repo=None``: the user's file alone.

    A pyproject.toml counts only when it has a ``[tool.codur]`` table; one that is not valid
    TOML counts when its text mentions ``[tool.codur`` (then reading it fails, naming it).
    """
    files: list[ConfigFile] = []
    if repo is not None:
        toml = repo / "codur.toml"
        pyproject = repo / "pyproject.toml"
        if toml.is_file():
            files.append(ConfigFile(toml, "codur.toml", trusted=is_trusted(repo, toml)))
        elif pyproject.is_file() and _has_codur_table(pyproject):
            files.append(ConfigFile(pyproject, "pyproject", trusted=is_trusted(repo, pyproject)))
    user = user_config_path()
    if user.is_file():
        files.append(ConfigFile(user, "user"))
    return tuple(files)


def _has_codur_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
        return isinstance(tomllib.loads(text).get("tool", {}).get("codur"), dict)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return "[tool.codur" in text
    except OSError:
        return False


_ACTIVE: ContextVar[tuple[ConfigFile, ...]] = ContextVar("codur_config_files", default=())


def active_files() -> tuple[ConfigFile, ...]:
    """The files the CodurConfig being built reads, highest precedence first (set by :func:`reading`)."""
    return _ACTIVE.get()


@contextmanager
def reading(files: tuple[ConfigFile, ...]) -> Iterator[None]:
    """Within the block, CodurConfig() reads ``files`` (highest precedence first) below the environment."""
    token = _ACTIVE.set(tuple(files))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def source_values(settings_cls: type[BaseSettings],
                  files: tuple[ConfigFile, ...]) -> tuple[dict, list[tuple[ConfigFile, dict]]]:
    """(values from the environment, [(file, its values)] in precedence order), keyed by field
    name, nested as read."""
    env = field_names(settings_cls, EnvSettingsSource(settings_cls)())
    from_files = [(file, field_names(settings_cls, file.source(settings_cls)())) for file in files]
    return env, from_files


def file_setting(from_files: list[tuple[ConfigFile, dict]], path: tuple[str, ...]) -> ConfigFile | None:
    """The file whose value of ``path`` applies (the first that sets it), or None."""
    return next((file for file, values in from_files if has_path(values, path)), None)


def has_path(values: dict, path: tuple[str, ...]) -> bool:
    """Whether the nested dict ``values`` holds ``path`` (or a non-dict value on the way to it)."""
    node: Any = values
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
