"""ToolExecutor: the only path by which tools run.

It validates the arguments against the tool's schema, refuses paths outside the
repo, applies the tool policy (auto, read_only, confirm_writes), injects the
:class:`ToolContext`, caps the output with a visible note, times the call and
turns every exception into an error result the model can read.

The repo's own tests run through it too: :meth:`ToolExecutor.run_tests` is the test tool's
typed call (the body of ``run_pytest``) that observe, verify and localization in the repo
use, so the policy (under ``read_only`` the repo is mounted read-only for the tests), the
confinement, the cancel gate and the change journal apply to every run of them; repair's
candidate workers take the same policy from :meth:`ToolExecutor.test_policy`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codur.core.events import Event
from codur.core.events.tool import SecretRedacted, ToolCall
from codur.core.usage import UsageLedger
from codur.sandbox.secrets import redact
from codur.tools.context import ToolContext, ToolError
from codur.tools.journal import ChangeJournal
from codur.tools.registry import REGISTRY, SideEffect, ToolRegistry
from codur.tools.result import ToolResult, cap_output

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.testing.command import TestCommand
    from codur.testing.report import TestRun

Policy = Literal["auto", "read_only", "confirm_writes"]
PATH_ARGS = ("path", "paths", "src", "dst", "file", "files", "directory")


@dataclass(frozen=True)
class ToolSettings:
    """The settings a ToolExecutor runs tools under (a run's: :meth:`from_config`).

    Attributes:
        policy: auto | read_only (refuse FILE_MUTATION/STATE_CHANGE/CODE_EXECUTION) | confirm_writes
            (ask ``confirm(name, args)`` before a FILE_MUTATION tool; refuse without it).
        timeout_s: limit for tools that run code, seconds.
        output_chars: output cap, characters.
        allow_secrets: let tools read .env files and keys.
        env_allow: environment variable names child processes get beyond the allowlist.
        memory_mb: address-space limit of every process a tool starts, MiB; None: none.
        allow_risky: write risky code without asking (see :class:`ToolContext`).
        network: under bubblewrap, let the processes a tool starts reach the network.
        tmp_mb: their private /tmp's size, MiB (None: a share of the machine's memory; 0: bwrap's own).
    """

    policy: Policy = "auto"
    timeout_s: float = 120.0
    output_chars: int = 6000
    allow_secrets: bool = False
    env_allow: tuple[str, ...] = ()
    memory_mb: int | None = None
    allow_risky: bool = False
    network: bool = False
    tmp_mb: int | None = None

    @classmethod
    def from_config(cls, config: CodurConfig) -> ToolSettings:
        """The settings ``tool_policy``, ``tool_timeout_s``, ``tool_output_chars``, ``allow_secrets``,
        ``tool_env_allow``, ``test_memory_mb`` (0: none), ``allow_risky_patches``, ``sandbox_network``,
        ``sandbox_tmp_mb``."""
        return cls(policy=config.tool_policy, timeout_s=config.tool_timeout_s, output_chars=config.tool_output_chars,
                   allow_secrets=config.allow_secrets, env_allow=tuple(config.tool_env_allow),
                   memory_mb=config.test_memory_mb or None, allow_risky=config.allow_risky_patches,
                   network=config.sandbox_network, tmp_mb=config.sandbox_tmp_mb)


class ToolExecutor:
    """Runs tool calls for one repo.

    Args:
        root: repository root.
        settings: policy, limits and sandbox settings (default: :class:`ToolSettings`'s defaults).
        registry: where tools are looked up; default codur's.
        run_dir: the run's folder (the journal's originals, the RLM tool's trace), or None.
        journal: the change journal (default: a new one, stored under ``run_dir``).
        confirm: ``confirm(name, args) -> bool`` under the confirm_writes policy; its attribute
            ``risky(path, findings) -> bool``, when it has one, approves a write adding risky code.
        on_event: receives the events of the calls (:mod:`codur.core.events`): a ``tool.call``
            after each call, and what the tools say (``tests.run``, ``secret.redacted`` ...).
        ledger: the run's usage ledger: told each call's seconds as tool time, or, for a call
            that ran the tests, their seconds as test time (:meth:`ToolContext.tests_ran`).
        cancel: the run's cancel event (default a new one): once set, no tool call starts,
            and a running process is killed (see :meth:`stop`).
        model_factory: ``() -> chat model`` for a tool that calls a model (the RLM tool).
        budget_left: ``() -> (tokens, seconds)`` the run may still spend (the RLM tool's child budget).
        test_command: the repo's test command (default: resolved on first use).

    Raises:
        NotADirectoryError: ``root`` is not a directory.
    """

    def __init__(self, root: Path, settings: ToolSettings | None = None, *, registry: ToolRegistry | None = None,
                 run_dir: Path | None = None, journal: ChangeJournal | None = None,
                 confirm: Callable[[str, dict], bool] | None = None, on_event: Callable[[Event], None] | None = None,
                 cancel: threading.Event | None = None, model_factory: Callable[[], Any] | None = None,
                 budget_left: Callable[[], tuple[int, float]] | None = None,
                 test_command: TestCommand | None = None, ledger: UsageLedger | None = None) -> None:
        root = Path(root).resolve()
        if not root.is_dir():
            raise NotADirectoryError(f"repository not found: {root}")
        settings = settings or ToolSettings()
        self.settings = settings
        self.confirm_given = confirm
        self.registry = registry or REGISTRY
        self.allowed: set[str] | None = None
        self.policy = settings.policy
        self.confirm = confirm
        self.output_chars = settings.output_chars
        self.on_event = on_event
        self.journal = journal or ChangeJournal(root, run_dir)
        self.ctx = ToolContext(root=root, journal=self.journal, timeout_s=settings.timeout_s,
                               allow_secrets=settings.allow_secrets, read_only=settings.policy == "read_only",
                               model_factory=model_factory, budget_left=budget_left, run_dir=run_dir,
                               env_allow=settings.env_allow, cancel=cancel or threading.Event(), on_event=on_event,
                               test_command=test_command, memory_mb=settings.memory_mb,
                               allow_risky=settings.allow_risky, network=settings.network, tmp_mb=settings.tmp_mb,
                               confirm_risky=getattr(confirm, "risky", None), ledger=ledger)
        self.calls = 0

    @property
    def root(self) -> Path:
        return self.ctx.root

    def for_run(self, *, run_dir: Path | None, cancel: threading.Event, on_event: Callable[[Event], None] | None,
                model_factory: Callable[[], Any] | None = None,
                budget_left: Callable[[], tuple[int, float]] | None = None,
                test_command: TestCommand | None = None, ledger: UsageLedger | None = None) -> ToolExecutor:
        """This executor bound to one run: the same class, registry, settings (policy, limits,
        sandbox) and confirm callback, with a new tool context and change journal holding the
        run's folder, cancel event, event channel, model and budget. The engine calls it on an
        executor the caller put in ``EngineComponents.tools``, so the caller's executor (a
        subclass that logs or filters calls, say) is the one every tool call of the run goes
        through, while each run keeps its own journal.

        Args:
            run_dir: the run's folder (the journal's originals), or None.
            cancel: the run's cancel event.
            on_event: the run's event channel.
            model_factory, budget_left, test_command, ledger: as the constructor's.
        """
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        ToolExecutor.__init__(clone, self.root, self.settings, registry=self.registry, run_dir=run_dir,
                              confirm=self.confirm_given, on_event=on_event, cancel=cancel,
                              model_factory=model_factory, budget_left=budget_left,
                              test_command=test_command or self.ctx.test_command, ledger=ledger)
        clone.allowed = self.allowed
        return clone

    def run_tests(self, selection: list[str] | None = None, *, caller: str = "") -> TestRun:
        """The test tool (``run_pytest``'s body, :func:`codur.tools.testing.run_tests`) as a typed
        call: how observe, verify and localization run the repo's own tests.

        The policy holds as for any tool call, with one difference the nodes need: under
        ``read_only`` the tests still run (codur must see them fail) but with the repo mounted
        read-only (bubblewrap ``--ro-bind``), and without bubblewrap whatever they changed is
        put back at once; under ``confirm_writes`` a test run asks nothing (codur writes
        nothing; what the tests change is journaled). The run is confined like every tool
        process, refused once the run is cancelled, and reported as a ``tool.call`` event
        (``tool``: run_pytest, ``caller``: who asked) beside its ``tests.run`` event.

        Args:
            selection: test ids or paths relative to the repo; None: the whole suite.
            caller: who runs them ("observe", "verify", ...), for the event.

        The run's limits are :func:`codur.tools.testing.run_tests`'s: the tool timeout for the
        whole run, :data:`codur.testing.command.TEST_TIMEOUT_S` seconds per test.

        Raises:
            ToolError: the command is not found or cannot start, or the run was cancelled.
        """
        from codur.tools.testing import run_tests

        call_id = f"call_{self.calls}"
        self.calls += 1
        t0, tested = time.monotonic(), self.ctx.tests_seconds()
        args: dict[str, Any] = {"selection": selection, "caller": caller}
        try:
            report = run_tests(self.ctx, selection)
        except ToolError as exc:
            self._finish(ToolResult("run_pytest", call_id, False, f"Error: {exc}", time.monotonic() - t0, args),
                         tested)
            raise
        self._finish(ToolResult("run_pytest", call_id, True, report.summary, time.monotonic() - t0, args), tested)
        return report

    def test_policy(self) -> TestPolicy:
        """What holds for a test run this executor does not start itself (repair's candidate
        workers on their private copies, localization through the warm fork server): the
        repo read-only, the cancel event, the address-space limit (MiB)."""
        return TestPolicy(read_only=self.policy == "read_only", cancel=self.ctx.cancel, memory_mb=self.ctx.memory_mb,
                          allow_secrets=self.ctx.allow_secrets)

    def with_allowed(self, allowed: Collection[str] | None) -> ToolExecutor:
        """A view of this executor limited to ``allowed`` tools, sharing context and journal."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.allowed = set(allowed) if allowed is not None else None
        return clone

    def stop(self, timeout_s: float) -> bool:
        """Cancel: set the cancel event, so that no tool call starts from now on and a running
        process is killed, then wait up to ``timeout_s`` seconds for the calls in flight to
        end. True when none runs any more (then nothing changes the repo through the tools)."""
        return self.ctx.gate.close(self.ctx.cancel, timeout_s)

    def _refusal(self, name: str, args: dict) -> str | None:
        spec = self.registry.get(name)
        if spec is None or (self.allowed is not None and name not in self.allowed):
            names = sorted(self.allowed) if self.allowed is not None else self.registry.names()
            return f"unknown tool {name!r}; available: {', '.join(names)}"
        writes = spec.side_effects & {SideEffect.FILE_MUTATION, SideEffect.STATE_CHANGE, SideEffect.CODE_EXECUTION}
        if writes and self.policy == "read_only":
            return f"{name} changes files or runs code and the tool policy is read-only"
        if (
            SideEffect.FILE_MUTATION in spec.side_effects
            and self.policy == "confirm_writes"
            and (self.confirm is None or not self.confirm(name, args))
        ):
            return f"{name} was not confirmed by the user; nothing was changed"
        for key in PATH_ARGS:
            value = args.get(key)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    try:
                        self.ctx.resolve(item)
                    except ToolError as exc:
                        return str(exc)
        return None

    def execute(self, name: str, args: dict | None = None, call_id: str = "") -> ToolResult:
        """Run one tool call; never raises except KeyboardInterrupt/SystemExit."""
        args = dict(args or {})
        call_id = call_id or f"call_{self.calls}"
        self.calls += 1
        t0, tested = time.monotonic(), self.ctx.tests_seconds()
        ok, output = False, ""
        if not self.ctx.gate.enter(self.ctx.cancel):
            return self._finish(ToolResult(name, call_id, False, "Error: the run was cancelled; this tool call "
                                           "was not started", 0.0, args), tested)
        try:
            refusal = self._refusal(name, args)
            if refusal:
                output = f"Error: {refusal}"
            else:
                spec = self.registry.get(name)
                assert spec is not None
                try:
                    parsed = spec.parse_args(args)
                except ValueError as exc:
                    output = f"Error: {exc}"
                else:
                    output = str(spec.func(self.ctx, **parsed))
                    ok = True
        except ToolError as exc:
            output = f"Error: {exc}"
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - every failure becomes a readable result
            output = f"Error: {name} failed: {type(exc).__name__}: {exc}"
        finally:
            self.ctx.gate.leave()
        output = self._redacted(name, output)
        return self._finish(ToolResult(name, call_id, ok, cap_output(output, self.output_chars),
                                       time.monotonic() - t0, args), tested)

    def _redacted(self, name: str, output: str) -> str:
        """Every tool's output (``read_file`` of a ``.git/config`` too) through the one set of
        secret detectors (:func:`codur.sandbox.secrets.redact`), with a ``secret.redacted`` event
        naming their kinds (never their values); code runs' output was redacted already."""
        found = redact(output)
        if found.kinds and self.on_event:
            self.on_event(SecretRedacted(tool=name, count=len(found.kinds), kinds=sorted(set(found.kinds))))
        return found.text

    def _finish(self, result: ToolResult, tested: float) -> ToolResult:
        """Tell the call: its seconds to the ledger as tool time unless it ran the tests (the
        thread's test seconds grew past ``tested``: they were told as test time), its event."""
        name, args, ok = result.name, result.args, result.ok
        if self.ctx.ledger is not None and self.ctx.tests_seconds() == tested:
            self.ctx.ledger.spent("tools_s", result.duration_s)
        if self.on_event:
            self.on_event(ToolCall(tool=name, args=_short(args), ok=ok, duration_s=round(result.duration_s, 3),
                                   output=result.output[:300]))
        return result


@dataclass(frozen=True)
class TestPolicy:
    """The run's policy for test runs outside the repo's own folder (:meth:`ToolExecutor.test_policy`).

    Attributes:
        read_only: the tool policy is read_only: no run may write the repo (repair's workers
            write only their copies; the repo is bound read-only in their sandbox).
        cancel: the run's cancel event: once set, no test run starts.
        memory_mb: each test process's address-space limit, MiB; None: none.
        allow_secrets: the copies keep the repo's credential files (else they hold them empty,
            :func:`codur.tools.masking.blank_masked`).
    """

    __test__ = False

    read_only: bool = False
    allow_secrets: bool = False
    cancel: threading.Event | None = None
    memory_mb: int | None = None

    def check(self) -> None:
        """Refuse a test run once the run is cancelled.

        Raises:
            ToolError: the run was cancelled.
        """
        if self.cancel is not None and self.cancel.is_set():
            raise ToolError("the run was cancelled: no test run starts")


def _short(args: dict) -> dict:
    return {k: (v[:200] + "…" if isinstance(v, str) and len(v) > 200 else v) for k, v in args.items()}
