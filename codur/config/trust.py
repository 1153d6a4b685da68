"""Which settings a repository's own config file may set: trust levels.

A cloned repository is someone else's code. Its ``codur.toml`` (or ``[tool.codur]``) may set
how codur works on it (limits, fixers, samples, the tests to start from), but not the
settings that choose **where code and secrets go** or **how much the sandbox allows**: those
(:data:`USER_ONLY`) come only from the user's own config file, the environment and flags. A
repo file that sets one gets it ignored, with one warning naming the keys
(:func:`refusal`), unless the user trusts that repo: ``codur trust PATH`` records the repo's
config file with its SHA-256 in ``$XDG_CONFIG_HOME/codur/trusted.json`` (the user's config
folder); a changed file is not trusted until trusted again.

``test_command`` is the repo's when it runs pytest or unittest (``pytest ...``,
``python -m pytest ...``, ``python -m unittest ...``, with ``uv run`` / ``poetry run`` in front,
the program bare or by an absolute path); any other program, and any program by a path relative
to the repo (``tools/python -m pytest``: the repo's own executable), is user-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from codur.core.files import atomic_write_bytes

#: Settings a repo file may not set without ``codur trust``, with why (README, "Trust levels").
USER_ONLY: dict[tuple[str, ...], str] = {
    ("base_url",): "the endpoint code and tasks are sent to",
    ("model",): "the model billed at the endpoint",
    ("api_key_env",): "which secret is read and sent",
    ("api_key",): "the key sent to the endpoint",
    ("profiles",): "endpoints, models and key variables",
    ("roles",): "which profile each role calls",
    ("agents",): "agents, among them commands to run",
    ("default_agent",): "which agent runs",
    ("database_url",): "where runs, code and diffs are stored",
    ("storage",): "where runs, code and diffs are stored",
    ("sandbox_network",): "network for the code codur runs",
    ("tool_env_allow",): "which of your variables the code codur runs sees",
    ("allow_risky_patches",): "writing network/process/eval code without asking",
    ("allow_secrets",): "reading .env files and keys",
    ("test_memory_mb",): "the tests' memory limit",
    ("sandbox_tmp_mb",): "the size of the sandbox's /tmp",
    ("tool_policy",): "what the agent's tools may do",
    ("max_cost_usd",): "how much may be spent",
    ("mock_replies",): "the model's replies",
    ("local", "server_url"): "the endpoint code and tasks are sent to",
    ("local", "cache_dir"): "where a 1 GB model file is written",
    ("test_command",): "a program other than pytest or unittest",
}

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")


def pytest_like(command: Any) -> bool:
    """Whether ``command`` (a string or argv list) runs pytest or unittest: ``pytest``,
    ``py.test``, ``python[3[.x]] -m pytest|unittest``, maybe after ``uv run`` / ``poetry run``,
    the program named bare or by an absolute path. A path relative to the repo
    (``tools/python -m pytest``) is the repo's own program, whatever its name: not pytest-like."""
    words = shlex.split(command) if isinstance(command, str) else [str(w) for w in command or []]
    while words[:2] in (["uv", "run"], ["poetry", "run"]):
        words = words[2:]
    if not words:
        return False
    if "/" in words[0] and not os.path.isabs(words[0]):
        return False
    program = Path(words[0]).name
    if program in ("pytest", "py.test"):
        return True
    return bool(_PYTHON.match(program)) and words[1:2] == ["-m"] and words[2:3] in (["pytest"], ["unittest"])


def _leaves(values: dict, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in values.items():
        path = (*prefix, str(key))
        if path in USER_ONLY or not isinstance(value, dict):
            yield path, value
        else:
            yield from _leaves(value, path)


def user_only_keys(values: dict) -> list[str]:
    """The dotted keys of ``values`` (a repo file's table) that a repo file may not set, sorted."""
    out = []
    for path, value in _leaves(values):
        if path == ("test_command",) and pytest_like(value):
            continue
        if path in USER_ONLY:
            out.append(".".join(path))
    return sorted(out)


def without(values: dict, keys: list[str]) -> dict:
    """A copy of ``values`` without the dotted ``keys`` (an emptied table is dropped too)."""
    out = json.loads(json.dumps(values, default=str)) if keys else values
    for key in keys:
        *head, last = key.split(".")
        node = out
        for part in head:
            node = node.get(part, {})
        node.pop(last, None)
        if head and not node:
            out.pop(head[0], None)
    return out


def refusal(label: str, keys: list[str], repo: Path) -> str:
    """The one-line warning for a repo file whose ``keys`` were ignored."""
    why = "; ".join(f"{k} ({USER_ONLY[tuple(k.split('.'))]})" for k in keys)
    user_file = trust_store_path().with_name("config.toml")
    return (f"{label}: ignored {why}: a repository's own file may not choose these; set them in your "
            f"{user_file}, a CODUR_* variable or a flag, or run `codur trust {repo}` if you trust this repo")


# the trust store ------------------------------------------------------------------------------

def trust_store_path() -> Path:
    """``$XDG_CONFIG_HOME/codur/trusted.json`` (default ``~/.config/codur/trusted.json``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "codur" / "trusted.json"


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _store() -> dict[str, dict[str, str]]:
    try:
        data = json.loads(trust_store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    repos = data.get("repos") if isinstance(data, dict) else None
    return repos if isinstance(repos, dict) else {}


def is_trusted(repo: Path, config_file: Path) -> bool:
    """Whether the user trusts ``config_file`` of ``repo`` as it is now (path and SHA-256 recorded)."""
    entry = _store().get(str(Path(repo).resolve()))
    try:
        return bool(entry) and entry.get("file") == Path(config_file).name and entry.get("sha256") == \
            file_digest(config_file)
    except OSError:
        return False


def trust(repo: Path, config_file: Path | None) -> dict[str, str] | None:
    """Record that the user trusts ``repo``'s ``config_file`` as it is now (None: forget the
    repo). Written atomically. Returns the entry written (repo, file, sha256), or None.

    Raises:
        OSError: the store cannot be written.
    """
    repos = _store()
    key = str(Path(repo).resolve())
    entry = None
    if config_file is None:
        repos.pop(key, None)
    else:
        entry = {"file": Path(config_file).name, "sha256": file_digest(config_file)}
        repos[key] = entry
    path = trust_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps({"repos": repos}, indent=1, sort_keys=True) + "\n").encode())
    return entry
