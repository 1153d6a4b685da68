"""The tables of codur's settings: the models a role can use (``[profiles.<name>]``), the
embedded model (``[local]``), where runs are kept (``[storage]``), the configured agents
(``[agents.<name>]``), and the read-only view of the run-time limits. The settings themselves,
and how they are read: :mod:`codur.config`.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

from codur.core import cpu


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codur"


class ModelProfile(BaseModel):
    """One model a role can use. ``base_url=None`` means the embedded local model."""

    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    model: str = Field("qwen2.5-coder-1.5b-instruct", description="Model name sent to the endpoint.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the API key.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int = Field(768, ge=1, description="Completion cap per call, tokens.")
    timeout_s: float | None = Field(
        None, gt=0, description="HTTP timeout per call, seconds (cut to the run's time left); None: the run's "
        "model_timeout_s.")
    native_tools: bool | None = Field(
        None, description="Send tool schemas with bind_tools; None: yes for endpoints, no for the embedded "
        "model (it answers calls as JSON in the content anyway, and the schemas cost ~1,200 prompt tokens).")
    usd_per_mtok_in: float = Field(0.0, ge=0, description="Price of a million prompt tokens, USD.")
    usd_per_mtok_out: float = Field(0.0, ge=0, description="Price of a million completion tokens, USD.")


class LocalModelSettings(BaseModel):
    """The embedded Qwen2.5-Coder served by xllamacpp on 127.0.0.1."""

    n_ctx: int = Field(8192, ge=512, description="Context window, tokens.")
    threads: int = Field(
        default_factory=lambda: cpu.model_threads(cpu.budget().cores), ge=1,
        description="CPU threads for generation and prompt processing; default: the CPU budget's (all the cores "
        "codur may use up to 2, half of them past that, at most 8).")
    cache_dir: Path = Field(default_factory=_default_cache_dir, description="Where the GGUF is rebuilt.")
    start_timeout_s: float = Field(120.0, gt=0, description="Wait for /health at most this long, seconds.")
    timeout_s: float = Field(
        300.0, gt=0, description="How long one request to the embedded model may wait, seconds (a plain call's whole "
        "wait, a streamed reply's wait for each chunk): it reads ~15 ms a prompt token on two cores, so a 4,000-token "
        "prompt alone takes 60 s before the reply starts, more on a loaded machine.")
    max_tokens: int = Field(512, ge=1, description="Completion cap per call, tokens.")
    parallel: int = Field(1, ge=1, description="Server slots (llama.cpp n_parallel); each slot gets n_ctx / parallel "
                          "tokens. 1: on 2 cores two slots gave 11.6 samples/min vs 10.5 with one "
                          "(bench/agent/slots.py, 6 samples each), not worth half the context per slot.")
    verbosity: int = Field(0, ge=0, le=3, description="llama.cpp log verbosity (0 silent, 3 debug).")
    server_url: str | None = Field(
        None, description="An embedded server already running (http://127.0.0.1:PORT/v1), used instead of "
        "starting one: `codur batch` starts one for its local workers and sets it (CODUR_LOCAL__SERVER_URL).")


def postgres_url(value: SecretStr | None) -> SecretStr | None:
    """Only a ``postgresql://`` (or ``postgres://``) URL is taken; an empty one is unset.

    Raises:
        ValueError: another scheme.
    """
    if value is None or not value.get_secret_value().strip():
        return None
    if not value.get_secret_value().startswith(("postgresql://", "postgres://")):
        raise ValueError("not a PostgreSQL URL (postgresql://user:password@host:5432/dbname)")
    return value


class StorageSettings(BaseModel):
    """Where runs are kept: the ``[storage]`` table of a config file."""

    url: SecretStr | None = Field(
        None, description="A PostgreSQL database (postgresql://user:password@host:5432/dbname) that keeps the run "
        "checkpoints, session memory, batch results and the run list instead of the repo's SQLite files; the same "
        "as CODUR_DATABASE_URL (which wins). Unset: the repo's files.")

    _url = field_validator("url")(postgres_url)


TaskTypeName = Literal["code_fix", "code_generation", "code_validation", "code_analysis", "file_operation",
                       "explanation", "refactor", "documentation", "result_verification"]  # codur.tools.TaskType


class AgentConfig(BaseModel):
    """A configured agent: an LLM agent (prompt + tools + profile), a command-line agent, or a
    Python class behind AgentPort (codur/agents/plugins.py)."""

    kind: Literal["llm", "cli", "python"] = Field(
        "llm", description="llm: the tool loop; cli: a subprocess; python: an AgentPort class.")
    system_prompt: str | None = Field(None, description="Extra instructions prepended to the agent's prompt.")
    profile: str | None = Field(None, description="llm agents: a name in `profiles` (its model); default: the "
                                "actor role's chain.")
    task_types: list[TaskTypeName] | None = Field(
        None, description="llm agents: the TaskTypes it serves, the first used when the plan's is not among them; "
        "default: the plan's.")
    command: list[str] = Field(default_factory=list, description="cli agents: argv; '{prompt}' is replaced.")
    timeout_s: float = Field(600.0, gt=0, description="cli agents: wall-clock limit, seconds.")
    target: str | None = Field(
        None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
        description="python agents: 'package.module:Class'; default: the entry point of the agent's name in the "
        "group codur.agents.")


@dataclass(frozen=True)
class RuntimeLimits:
    """The run-time limits, read-only (``config.runtime``), under the names the specifications use.

    Attributes:
        max_iterations: Plan→Act→Verify cycles, so a failed verification is retried at most
            ``max_iterations - 1`` times (the setting ``max_turns``).
        tool_iterations: model calls per agent tool loop (the setting ``max_iterations``).
        timeout_s: a run's wall-clock limit, seconds; token_budget: tokens; max_cost_usd: USD
            (None: no limit); max_retries: retries of a failed agent invocation.
    """

    max_iterations: int
    tool_iterations: int
    timeout_s: float
    token_budget: int
    max_cost_usd: float | None
    max_retries: int


#: The ``[runtime]`` table's keys (``RuntimeLimits``' names) -> the setting each one sets.
RUNTIME_SETTINGS = {"max_iterations": "max_turns", "tool_iterations": "max_iterations", "timeout_s": "timeout_s",
                    "token_budget": "token_budget", "max_cost_usd": "max_cost_usd", "max_retries": "max_retries"}


def with_runtime(values: dict[str, Any], where: str = "runtime") -> dict[str, Any]:
    """``values`` (a config file's table, or ``CodurConfig``'s arguments) with its ``runtime``
    table (a dict or a :class:`RuntimeLimits`) written as the settings it names, e.g.
    ``{"runtime": {"max_iterations": 5}}`` -> ``{"max_turns": 5}``. ``values`` is not changed.

    Raises:
        ValueError: ``runtime`` is not a table, names a key :data:`RUNTIME_SETTINGS` lacks, or sets
            a setting ``values`` also sets to another value (one line naming both, after ``where``).
    """
    if "runtime" not in values:
        return values
    out = dict(values)
    table = out.pop("runtime")
    if isinstance(table, RuntimeLimits):
        table = asdict(table)
    if not isinstance(table, dict):
        raise ValueError(f"{where}: a table of {', '.join(RUNTIME_SETTINGS)} (got {type(table).__name__})")
    for key, value in table.items():
        setting = RUNTIME_SETTINGS.get(key)
        if setting is None:
            close = difflib.get_close_matches(str(key), list(RUNTIME_SETTINGS), n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (one of {', '.join(RUNTIME_SETTINGS)})"
            raise ValueError(f"{where}.{key}: not a runtime limit{hint}")
        if setting in out and out[setting] != value:
            raise ValueError(f"{where}.{key} = {value!r} and {setting} = {out[setting]!r} set the same limit")
        out[setting] = value
    return out
