"""CodurConfig: every setting codur reads, from flags, the environment (``CODUR_*``) or a file.

One pydantic-settings class; nested fields use ``__`` in environment variables,
e.g. ``CODUR_LOCAL__N_CTX=16384``, and TOML tables in files (``[local]``,
``[profiles.fast]``). The endpoint falls back to ``OPENAI_BASE_URL``. Which file, and
the precedence (flags > environment > file > defaults): :mod:`codur.config.sources`;
:func:`codur.config.load.load_config` applies it for a repo.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from codur.config.endpoint import ModelChoiceError, served_model
from codur.config.sources import active_files
from codur.config.tables import (
    AgentConfig,
    LocalModelSettings,
    ModelProfile,
    RuntimeLimits,
    StorageSettings,
    postgres_url,
    with_runtime,
)
from codur.core.contracts import FIXER_NAMES, MODEL_FIXERS, FixerName
from codur.sandbox.limits import default_test_memory_mb


class CodurConfig(BaseSettings):
    """All of codur's settings. Read from ``CODUR_*`` environment variables, and from the repo's
    config file when built by :func:`load_config`."""

    model_config = SettingsConfigDict(env_prefix="CODUR_", env_nested_delimiter="__", extra="ignore")

    def __init__(self, **values: Any) -> None:
        """Settings given as arguments over the environment and the config files.

        ``runtime`` (a dict or a :class:`RuntimeLimits`) sets the limits under their
        :attr:`runtime` names, e.g. ``CodurConfig(runtime={"max_iterations": 5})`` is
        ``CodurConfig(max_turns=5)``; so does a config file's ``[runtime]`` table.

        Raises:
            ConfigError: ``runtime`` names no limit, is not a table, or contradicts an argument
                that sets the same setting (``runtime.max_iterations = 5 and max_turns = 3``).
            pydantic.ValidationError: a value out of range.
        """
        try:
            values = with_runtime(values)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        super().__init__(**values)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments (flags) > environment > the config files :func:`load_config` found (the repo's,
        then the user's), merged key by key."""
        files = tuple(file.source(settings_cls) for file in active_files())
        return (init_settings, env_settings, dotenv_settings, file_secret_settings, *files)

    base_url: str | None = Field(
        None,
        validation_alias=AliasChoices("CODUR_BASE_URL", "OPENAI_BASE_URL", "base_url"),
        description="OpenAI-compatible endpoint; unset means the embedded local model.",
    )
    model: str | None = Field(None, description="Model name at the endpoint (CODUR_MODEL); unset with an endpoint: "
                              "the one model its /v1/models lists.")
    api_key_env: str | None = Field(
        None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Environment variable holding the endpoint's API key, e.g. GROQ_API_KEY; unset: CODUR_API_KEY, "
        "else OPENAI_API_KEY.")
    api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("CODUR_API_KEY", "OPENAI_API_KEY", "api_key"),
        description="API key for the endpoint.",
    )
    profiles: dict[str, ModelProfile] = Field(default_factory=dict, description="Named model profiles.")
    roles: dict[str, list[str]] = Field(
        default_factory=dict,
        description="role (planner, actor, critic) -> profile names tried in order; missing roles use actor's.",
    )
    agents: dict[str, AgentConfig] = Field(default_factory=dict, description="Configured agents by name.")
    default_agent: str = Field("coder", description="Agent used when the plan names none.")
    local: LocalModelSettings = Field(default_factory=LocalModelSettings)
    database_url: SecretStr | None = Field(
        None, description="A PostgreSQL URL (postgresql://user:password@host:5432/dbname) for teams: the LangGraph "
        "checkpoints, session memory, batch results and the run list go there instead of the repo's SQLite files, "
        "so any machine can resume a run or read a batch (needs codur[postgres]). In a config file: [storage] url. "
        "Unset: the repo's files.")
    storage: StorageSettings = Field(default_factory=StorageSettings)

    max_turns: int = Field(3, ge=1, description="Plan→Act→Verify cycles before status failed/max_turns.")
    stop_without_progress: bool = Field(
        True, description="After the patch pipeline found no plausible patch, agent turns that make none of the "
        "tests failing at the start pass are retried with a different strategy (a fresh retry: the edits reverted, "
        "the prompt told what was tried) until no_progress_turns such turns, then the run ends (failed, "
        "no_progress); false: every turn until max_turns, edits kept.")
    no_progress_turns: int = Field(
        2, ge=1, description="Agent turns in a row without progress (after a failed patch pipeline) before the run "
        "gives up (failed, no_progress); each turn but the first is a fresh retry. Bounded by max_turns.")
    timeout_s: float = Field(1200.0, ge=0, description="Wall-clock limit of a run, seconds (0: stop at the first "
                              "check); every model call's HTTP timeout is cut to the time left.")
    token_budget: int = Field(300_000, ge=1, description="Total tokens a run may use.")
    model_timeout_s: float = Field(
        60.0, gt=0, description="How long one request to a model endpoint may wait, seconds (CODUR_MODEL_TIMEOUT_S), "
        "for every profile that sets no timeout_s (the embedded model has its own, local.timeout_s): a call's whole "
        "time, its streamed or dripped reply included (a wall-clock timer, codur.llm.deadline.hard_limit). Cut to the "
        "run's time left; retries stop at the run's deadline.")
    endpoint_failure_limit: int = Field(
        2, ge=1, description="Timeouts, connection failures or replies refused for their size in a row after which a "
        "run calls that model endpoint "
        "no more, for any role (a circuit breaker, codur.llm.breaker.CircuitBreaker); the run then ends "
        "model_unavailable unless a fixer without a model solves it.")
    max_cost_usd: float | None = Field(
        None, ge=0, description="Spend on model calls a run may make, USD (priced as codur.llm.pricing says; the "
        "embedded model costs 0); past it the run ends budget_exceeded / cost_budget. Unset: no limit.")
    max_iterations: int = Field(5, ge=1, description="Model calls per agent tool loop.")
    max_retries: int = Field(2, ge=0, description="Retries of a failed agent invocation (the agent runner's).")
    retry_base_delay_s: float = Field(2.0, ge=0, description="The agent runner's retry backoff base, seconds.")
    retry_after_cap_s: float = Field(
        30.0, ge=0, description="A 429 whose Retry-After (seconds or HTTP date) is at most this many seconds, and "
        "ends before the run's deadline, is waited for and the call made again; a longer one fails the call "
        "(status rate_limited if the run ends on it).")
    tool_policy: Literal["auto", "read_only", "confirm_writes"] = Field("auto")
    tool_timeout_s: float = Field(120.0, gt=0, description="Limit for a tool that runs code, seconds.")
    tool_output_chars: int = Field(6000, ge=100, description="Tool output cap, characters.")
    allow_secrets: bool = Field(False, description="Let tools read .env files and keys.")
    sandbox_network: bool = Field(
        False, description="Under bubblewrap, let the code the tools run (the repo's tests in observe and verify, "
        "run_pytest, run_python_file) reach the network; repair's candidate runs and the RLM worker stay offline.")
    sandbox_tmp_mb: int | None = Field(
        None, ge=0, description="Size of the private /tmp the code codur runs gets under bubblewrap, MiB (a tmpfs: "
        "memory that the test memory limit does not count). Unset: an eighth of the machine's memory, at least 256 "
        "(codur.sandbox.limits.default_tmp_mb); 0: bwrap's own (half the memory).")
    allow_risky_patches: bool = Field(
        False, description="Write a candidate patch (model sample or agent edit) that adds a call, import or "
        "reference the patch gate's allowlist lacks (network, processes, eval/exec, file access outside the repo, a "
        "module off the list: codur.tools.risk, codur.tools.allowlist) without asking (codur run "
        "--allow-risky-patches); unset: such a patch is written only when the user approves it under --confirm.")
    tool_env_allow: list[str] = Field(
        default_factory=list, description="Environment variables (exact names) passed to the code tools run, beyond "
        "codur.sandbox.bwrap.ENV_ALLOW (PATH, HOME, the locale, TERM, TMPDIR, VIRTUAL_ENV, PYTHONPATH and the "
        "interpreter's own settings); JSON list in CODUR_TOOL_ENV_ALLOW.")
    critic: bool | None = Field(
        None, description="Let the critic model verify (a tool loop that picks the checks and answers a "
        "verdict; with tests it explains a failure and the tests decide); None: yes for an endpoint, and for "
        "the embedded model only in a repo without tests (its advice costs ~20 s a call).")
    localize: bool = Field(
        True, description="Rank suspicious lines (Ochiai over test coverage) for the agent's first prompt.")
    repair: bool = Field(
        True, description="Run the candidate-patch pipeline (mutation, model samples, hybrid) on a fix task with "
        "failing tests before the tool-loop agent; False: the agent alone.")
    fixers: Annotated[list[FixerName], NoDecode] = Field(
        default_factory=lambda: list(FIXER_NAMES),
        description="The fixers a fix task may use, run in cost order: mutation search (time-boxed while the "
        "model fixers follow), model patch samples, mutants of the samples' near misses, the tool-loop agent. "
        "In a variable: CODUR_FIXERS=mutation,sampling (or a JSON list).")
    mutation_time_box_s: float = Field(
        5.0, ge=0, description="Seconds of mutation search after localization before the model samples; the rest of "
        "the mutants run after the model's candidates.")
    samples: int = Field(6, ge=0, description="Model patch samples (K) drawn per run.")
    sample_format: Literal["function", "search_replace", "udiff"] = Field(
        "function", description="What a model sample writes: the function whole, SEARCH/REPLACE blocks, or a "
        "unified diff (bench/agent compares them).")
    sample_max_lines: int = Field(80, ge=1, description="Longest function shown whole to the sampling model, lines.")
    patch_time_budget_s: float = Field(
        300.0, ge=0, description="Wall-clock limit of the candidate-patch search, seconds.")
    repair_workers: int = Field(4, ge=1, description="Workers (private copies of the repo) that test candidate "
                                "patches; how many test at once is the CPU budget's: at most the cores codur may use, "
                                "fewer while the embedded model generates.")
    max_mutants: int = Field(400, ge=1, description="Mutants (candidate single edits) the mutation search tries "
                             "in its first tier.")
    mutant_tiers: int = Field(3, ge=1, description="Tiers of the mutation search: once every candidate was tried "
                              "with time left, tier k tries the next mutants up to k x max_mutants (k x max_pairs "
                              "pairs), best first; 1: max_mutants at most.")
    model_tiers_first: bool = Field(
        False, description="With time left once every candidate was tried: the model fixers' next tiers (more "
        "cloze masks and fills) before the mutation search's tiers 2..mutant_tiers; False (the default): the "
        "mutation tiers first, then the model's (bench/real, 2026-11-29: two bugs mutation tiers 2-3 fix in "
        "62-101 s timed out at 300 s behind the model's tiers, and no bug was fixed by a later cloze tier).")
    model_time_box_s: float = Field(150.0, ge=0, description="Seconds the model fixers' first tier (cloze fills, "
        "then patch samples) may take together; then the candidates left, the mutation tiers and the model's next "
        "tiers; 0: until the search's deadline (bench/real, 2026-11-29: 5 late fixes 961 s -> 844 s in all).")
    max_pairs: int = Field(100, ge=0, description="Second-order mutants (two edits on the same or adjacent lines, "
                           "or two statements of one function) among them at most; they keep a quarter of "
                           "max_mutants when the single edits would fill it.")
    mutant_timeout_s: float = Field(20.0, gt=0, description="Upper bound on one test stage of a candidate, "
                                    "seconds (each test also stops at 1 s + 5x its baseline time).")
    test_memory_mb: int | None = Field(
        None, ge=0, description="Address-space limit (RLIMIT_AS) of each test process codur starts, MiB: a test "
        "that allocates more fails with a MemoryError. Unset: half the machine's memory divided by repair_workers "
        "(at least 1024); 0: no limit.")
    test_command: Annotated[list[str] | None, NoDecode] = Field(
        None, description="How the repo's tests run, e.g. [\"pytest\", \"tests/unit\"], \"python -m unittest\" or "
        "\"tox -e py311 --\" (a string is split as a shell would); a bare python or pytest is the repo's. Unset: the "
        "repo's interpreter (an activated $VIRTUAL_ENV or $CONDA_PREFIX, $UV_PROJECT_ENVIRONMENT, .venv or venv, uv, "
        "poetry, else codur's) -m pytest.")
    tests: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Test files or ids the fix starts from (a string: space-separated); "
        "unset: the tests the task names, else the failing tests of the first run.")
    select_tests: bool = Field(
        True, description="Judge a candidate patch by the failing tests, then the passing tests that cover the "
        "changed code; only the winner runs the whole suite. False: every check runs the whole suite.")
    dry_run: bool = Field(False, description="Log prompts, call no agent.")
    keep_failed: bool = Field(
        False, description="Keep the edits of a run that ends without success. False: they are put back from the "
        "change journal (as `codur undo` does) and the attempt is kept in <run folder>/attempt.patch.")
    mock_replies: list[str] | None = Field(
        None, description="Scripted replies every model role plays instead of calling a model "
        "(codur.engine.MockProvider): for tests, demos and a Studio run without a model.")

    @field_validator("test_command", "tests", mode="before")
    @classmethod
    def _split_words(cls, value: object, info: ValidationInfo) -> object:
        """A string is split as a shell would; an empty test command is refused."""
        words = shlex.split(value) if isinstance(value, str) else value
        if info.field_name == "test_command" and words is not None and not any(words):
            raise ValueError("empty test command")
        return words

    @field_validator("fixers", mode="before")
    @classmethod
    def _fixer_list(cls, value: object) -> object:
        """A string is a JSON list or names separated by commas or spaces."""
        if isinstance(value, str):
            text = value.strip()
            return json.loads(text) if text.startswith("[") else [w for w in re.split(r"[,\s]+", text) if w]
        return value

    _database_url = field_validator("database_url")(postgres_url)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """An endpoint is an http(s) URL with a host (``http://127.0.0.1:8080/v1``), else refused."""
        from urllib.parse import urlsplit

        if value is None:
            return None
        try:
            parts = urlsplit(value.strip())
            ok = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
        except ValueError:  # a port that is no number
            ok = False
        if not ok:
            raise ValueError("not an http(s) URL with a host, e.g. http://127.0.0.1:8080/v1")
        return value.strip()

    @model_validator(mode="after")
    def _storage_url(self) -> CodurConfig:
        """``database_url`` unset: the config file's ``[storage] url``."""
        if self.database_url is None:
            self.database_url = self.storage.url
        return self

    def database(self) -> str | None:
        """The PostgreSQL URL runs are kept in (``database_url``, else ``[storage] url``), or None
        for the repo's SQLite files."""
        return self.database_url.get_secret_value() if self.database_url is not None else None

    @model_validator(mode="after")
    def _default_test_memory(self) -> CodurConfig:
        """``test_memory_mb`` unset: :func:`codur.sandbox.limits.default_test_memory_mb` of the workers."""
        if self.test_memory_mb is None:
            self.test_memory_mb = default_test_memory_mb(self.repair_workers) or 0
        return self

    @model_validator(mode="after")
    def _agents_are_complete(self) -> CodurConfig:
        """An agent's profile must exist, a cli agent needs a command (one line naming the field)."""
        for name, agent in self.agents.items():
            if agent.kind == "llm" and agent.profile is not None and agent.profile not in self.profiles:
                known = ", ".join(sorted(self.profiles)) or "none configured"
                raise ConfigError(f"agents.{name}.profile: unknown profile {agent.profile!r} (profiles: {known})")
            if agent.kind == "cli" and not agent.command:
                raise ConfigError(f"agents.{name}.command: a cli agent needs a command")
        return self

    @classmethod
    def default(cls, name: str) -> Any:
        """The default of the setting ``name`` (e.g. ``"repair_workers"`` -> 4): what a function
        outside the config takes when its caller gives no value, so each default is written once.

        Raises:
            KeyError: no such setting.
        """
        return cls.model_fields[name].get_default(call_default_factory=True)

    @property
    def runtime(self) -> RuntimeLimits:
        """The run-time limits as one view (:class:`RuntimeLimits`); each is a setting above,
        set by that setting, by ``[runtime]`` in a config file or by ``CodurConfig(runtime=...)``."""
        return RuntimeLimits(max_iterations=self.max_turns, tool_iterations=self.max_iterations,
                             timeout_s=self.timeout_s, token_budget=self.token_budget,
                             max_cost_usd=self.max_cost_usd, max_retries=self.max_retries)

    def model_fixers(self) -> list[str]:
        """The enabled fixers that call a model (``sampling``, ``hybrid``, ``agent``); [] means
        the run calls no model at all (the planner and the critic are not asked either)."""
        return [f for f in self.fixers if f in MODEL_FIXERS]

    def profiles_for(self, role: str, *, resolve: bool = True) -> list[ModelProfile]:
        """The fallback chain of profiles for ``role``; roles without one use ``actor``'s.

        Without any configured profile the chain is a single profile from
        base_url/model (or the embedded model when base_url is unset). With ``base_url`` and no
        ``model``, the endpoint is asked for the one it serves (:func:`served_model`), unless not
        ``resolve``: then the profile's model is "" (for what needs only the endpoint and its key).

        Raises:
            ConfigError: the served model cannot be chosen (its cause is the
                :class:`ModelChoiceError`, with ``cause``).
        """
        names = self.roles.get(role) or self.roles.get("actor") or []
        chain = [self.profiles[n] for n in names if n in self.profiles]
        if chain:
            return chain
        if self.base_url:
            key_env = self.api_key_env or ("CODUR_API_KEY" if os.environ.get("CODUR_API_KEY") else "OPENAI_API_KEY")
            model = self.model or ""
            if not model and resolve:
                try:
                    model = served_model(self.base_url, os.environ.get(key_env), key_env)
                except ModelChoiceError as exc:
                    raise ConfigError(str(exc)) from exc
            return [ModelProfile(base_url=self.base_url, model=model, api_key_env=key_env)]
        return [ModelProfile(base_url=None, max_tokens=self.local.max_tokens, timeout_s=self.local.timeout_s)]


class ConfigError(ValueError):
    """A setting could not be read; the message is one line naming the flag, the environment
    variable or the config file and key."""
