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
(:mod:`codur.config_trust`, ``codur trust PATH``); :func:`ignored_settings` names what was
dropped, and :func:`origins` gives each value's level (``user``, ``repo``, ``default``).
"""

from __future__ import annotations

import difflib
import functools
import os
import tomllib
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic_settings import (
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    TomlConfigSettingsSource,
)

from codur.config_tables import with_runtime
from codur.config_trust import is_trusted, user_only_keys, without

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
    untrusted repo file's user-only settings are dropped, :mod:`codur.config_trust`)."""

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
        as the settings it names: :func:`codur.config_tables.with_runtime`)."""
        header = ("tool", "codur") if self.kind == "pyproject" else None
        return _FileSource(settings_cls, self.path, toml_table_header=header, where=self)

    def source(self, settings_cls: type[BaseSettings]) -> PydanticBaseSettingsSource:
        """The source codur's settings read: every key of a trusted file; an untrusted repo file's
        without the user-only keys (:func:`codur.config_trust.user_only_keys`)."""
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
            if _is_model(inner):
                out += unknown_keys(inner, value, path)
            elif typing.get_origin(inner) is dict and len(args) == 2 and _is_model(args[1]):
                for name, table in value.items():
                    if isinstance(table, dict):
                        out += unknown_keys(args[1], table, (*path, str(name)))
    return out


def _is_model(annotation: Any) -> bool:
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


def env_variable(path: tuple[str, ...]) -> str:
    """The environment variable that set ``path``: the most specific one present, e.g.
    ``CODUR_LOCAL__N_CTX`` or ``CODUR_LOCAL``; ``OPENAI_*`` for the aliased endpoint and key."""
    present = {k.upper() for k in os.environ}
    if path[0] in ("base_url", "api_key"):
        candidates = [f"CODUR_{path[0].upper()}", f"OPENAI_{path[0].upper()}"]
    else:
        candidates = ["CODUR_" + "__".join(p.upper() for p in path[:n]) for n in range(len(path), 0, -1)]
    return next((c for c in candidates if c in present), candidates[0])


@dataclass(frozen=True)
class Origin:
    """One setting: dotted key, value as shown (secrets masked), where it came from, and the
    trust level of that source: ``user`` (a flag, a variable, the user's file), ``repo``,
    ``repo (trusted)``, ``default``, or ``ignored (untrusted repo)`` for a repo file's user-only
    value that was dropped."""

    key: str
    value: str
    origin: str
    level: str = ""


def origins(config: Any, flags: dict[str, Any], files: tuple[ConfigFile, ...]) -> list[Origin]:
    """Every leaf of ``config`` (a CodurConfig) with its origin: ``flag --x``, ``env CODUR_X``,
    the label of the file that set it, or ``default``. Secrets (SecretStr values) are masked."""
    env, from_files = source_values(type(config), files)
    out = []
    for path, value in _leaves(config.model_dump()):
        level = "user"
        if path[0] in flags:
            origin = f"flag {FLAGS.get(path[0], path[0])}"
        elif has_path(env, path):
            origin = f"env {env_variable(path)}"
        elif (file := file_setting(from_files, path)) is not None:
            origin, level = file.label, file.level
        else:
            origin = level = "default"
        shown = "********" if isinstance(value, SecretStr) else str(value)
        out.append(Origin(".".join(path), shown, origin, level))
    for file in files:
        raw = field_names(type(config), file.raw_source(type(config))())
        for key in file.ignored(type(config)):
            value = _get(raw, tuple(key.split(".")))
            shown = "********" if key.split(".")[0] in ("api_key", "database_url", "storage") else str(value)
            out.append(Origin(key, shown, file.label, "ignored (untrusted repo)"))
    return out


def ignored_settings(settings_cls: type[BaseSettings], files: tuple[ConfigFile, ...]) -> list[str]:
    """One warning per repo file whose user-only keys were dropped (:func:`codur.config_trust.refusal`)."""
    from codur.config_trust import refusal

    return [refusal(file.label, keys, file.path.parent) for file in files
            if (keys := file.ignored(settings_cls))]


def _get(values: dict, path: tuple[str, ...]) -> Any:
    node: Any = values
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def where(settings_cls: type[BaseSettings], loc: tuple, flags: dict[str, Any], files: tuple[ConfigFile, ...]) -> str:
    """Who gave the value at ``loc`` (a pydantic error location), for an error message:
    ``--flag``, ``CODUR_X`` or ``<file>: dotted.key``."""
    path = tuple(str(p) for p in loc if not isinstance(p, int))
    if not path:
        return "CODUR_*"
    if path[0] in flags:
        return FLAGS.get(path[0], path[0])
    env, from_files = source_values(settings_cls, files)
    file = file_setting(from_files, path)
    if file is not None and not has_path(env, path):
        return f"{file.label}: {file.key(path)}"
    return env_variable(path)


#: ``CODUR_*`` variables codur reads that are not settings: the sandbox switch, and those the
#: repair engine sets for its own child processes.
OTHER_VARIABLES = frozenset({
    "CODUR_SANDBOX", "CODUR_REPAIR_TEST_TIMEOUT", "CODUR_REPAIR_TEST_LIMITS", "CODUR_REPAIR_SELECT", "CODUR_REPAIR_OUT",
    "CODUR_REPAIR_COLLECT", "CODUR_REPAIR_PROGRESS",
    "CODUR_REPAIR_NO_COVERAGE", "CODUR_REPAIR_TIMEOUT_EXIT", "CODUR_REPAIR_SOURCE", "CODUR_REPAIR_JOB",
    "CODUR_REPAIR_MEMORY_MB", "CODUR_REPAIR_IDLE",
})


def setting_variables(settings_cls: type[BaseSettings]) -> dict[str, type[BaseModel] | None]:
    """``CODUR_<FIELD>`` of every setting, mapped to the model of its nested fields (``CODUR_LOCAL``
    -> LocalModelSettings, read as ``CODUR_LOCAL__N_CTX``), or None."""
    out: dict[str, type[BaseModel] | None] = {}
    for name, field in settings_cls.model_fields.items():
        out[f"CODUR_{name.upper()}"] = field.annotation if _is_model(field.annotation) else None
        if isinstance(field.validation_alias, AliasChoices):
            out.update({c.upper(): None for c in field.validation_alias.choices
                        if isinstance(c, str) and c.upper().startswith("CODUR_")})
    return out


def unknown_variables(settings_cls: type[BaseSettings], environ: dict[str, str] | None = None) -> list[str]:
    """One message per ``CODUR_*`` variable in ``environ`` (default: os.environ) that codur does not
    read, e.g. ``CODUR_MAX_TURN is not a codur setting (did you mean CODUR_MAX_TURNS?)``; a variable
    inside a table (``CODUR_LOCAL__N_CTXX``) is checked against the table's fields."""
    known = setting_variables(settings_cls)
    out = []
    for name in sorted(environ if environ is not None else os.environ):
        upper = name.upper()
        if not upper.startswith("CODUR_") or upper in known or upper in OTHER_VARIABLES:
            continue
        head, _, rest = upper.partition("__")
        model = known.get(head)
        if rest and head in known and (model is None or rest.split("__")[0].lower() in model.model_fields):
            continue  # a dict setting (profiles, roles, agents) or a field of a table
        if model is not None and rest:
            close = difflib.get_close_matches(rest.lower(), sorted(model.model_fields), n=1)
            hint = f"{head}__{close[0].upper()}" if close else None
        else:
            close = difflib.get_close_matches(upper, sorted([*known, *OTHER_VARIABLES]), n=1, cutoff=0.75)
            hint = close[0] if close else None
        out.append(f"{name} is not a codur setting" + (f" (did you mean {hint}?)" if hint else ""))
    return out


def _leaves(values: dict, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in values.items():
        path = (*prefix, str(key))
        if isinstance(value, dict) and value:
            yield from _leaves(value, path)
        else:
            yield path, value


# The endpoint's model -------------------------------------------------------------------------
# A local server (llama.cpp's llama-server, vLLM, Ollama, LM Studio) usually serves one model;
# its GET /v1/models lists it. served_model asks once per endpoint and process, through the
# openai client, and answers that model's id, or says which to pick.

#: Seconds to wait for the endpoint's model list.
LIST_TIMEOUT_S = 10.0


class ModelChoiceError(ValueError):
    """The endpoint's model cannot be chosen: unreachable, no model, or several. The message is one
    line that says what to pass (``--model`` / ``CODUR_MODEL``)."""


@functools.lru_cache(maxsize=16)
def served_model(base_url: str, api_key: str | None = None) -> str:
    """The id of the one model ``base_url`` lists at ``/models``.

    Args:
        base_url: an OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8080/v1``.
        api_key: sent as the bearer token, if any.

    Raises:
        ModelChoiceError: the list could not be read (within :data:`LIST_TIMEOUT_S` seconds), is
            empty, or names several models (they are listed in the message).
    """
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=LIST_TIMEOUT_S, max_retries=0)
    try:
        ids = sorted(model.id for model in client.models.list())
    except openai.OpenAIError as exc:
        why = f"{type(exc).__name__}: {str(exc)[:120]}"
        raise ModelChoiceError(f"no model named and {base_url}/models could not be read ({why}): "
                               "give one with --model or CODUR_MODEL") from None
    if not ids:
        raise ModelChoiceError(f"no model named and {base_url}/models lists none: give one with --model or CODUR_MODEL")
    if len(ids) > 1:
        shown = ", ".join(ids[:10]) + (f", ... ({len(ids)} in all)" if len(ids) > 10 else "")
        raise ModelChoiceError(f"no model named and {base_url} serves several: {shown}; pick one with --model "
                               "or CODUR_MODEL")
    return ids[0]
