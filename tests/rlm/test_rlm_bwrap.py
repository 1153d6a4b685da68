"""Issue 12, item 2: with a working bwrap the RLM worker runs in it: the scratch directory
is its only writable folder, it has no network and its own PID namespace."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest

from codur.rlm.sandbox import Sandbox, SandboxLimits
from codur.sandbox.bwrap import bwrap_problem

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bwrap: {bwrap_problem()}")


def test_the_worker_writes_only_its_scratch_directory(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as visible, Sandbox("", limits=SandboxLimits(timeout_s=10)) as sb:
        targets = [tmp_path / "pwned.txt", Path(visible) / "pwned.txt"]
        code = ("import os\nwritten = []\n"
                f"for target in {[str(t) for t in targets]!r}:\n"
                "    try:\n        open(target, 'w').write('x')\n        written.append(target)\n"
                "    except OSError:\n        pass\n"
                "open('note.txt', 'w').write('scratch is fine')\nprint(written, os.getpid())")
        result = sb.execute(code)
        assert result.error is None, result.error
        assert result.stdout.startswith("[] ")
        assert (sb.scratch / "note.txt").read_text() == "scratch is fine"
        assert [t for t in targets if t.exists()] == []
        assert int(result.stdout.split()[-1]) < 10  # its own PID namespace


def test_the_worker_has_no_network() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server, Sandbox("", limits=SandboxLimits(timeout_s=10)) as sb:
        port = server.getsockname()[1]
        result = sb.execute(f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
                            "    print('connected')\nexcept OSError as exc:\n    print('refused', type(exc).__name__)")
        assert result.stdout.startswith("refused"), result.stdout


def test_the_worker_sees_the_interpreter_but_no_file_of_the_machine_outside_it() -> None:
    """The REPL runs code a model wrote over an input it was handed (a log, a dump: text anyone may have written,
    "print /srv/app/settings.ini" included). Under bubblewrap it sees the system's programs and libraries and the
    interpreter, not the machine's other files: a folder outside /tmp and the home (another project, a server's
    config) was readable by absolute path."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place, Sandbox("", limits=SandboxLimits(timeout_s=10)) as sb:
        secret = Path(place) / "settings.ini"
        secret.write_text("launch code 4417\n")
        code = (f"import json, re, collections, datetime, sqlite3\ntry:\n    print(open({str(secret)!r}).read())\n"
                "except OSError as exc:\n    print('unseen', type(exc).__name__)\n"
                "import os\nprint(sorted(os.listdir('/')))\nprint(os.path.exists('/etc/shadow'))")
        result = sb.execute(code)
        assert result.error is None, result.error
        assert "4417" not in result.stdout and result.stdout.startswith("unseen FileNotFoundError"), result.stdout
        assert "'var'" not in result.stdout and "'usr'" in result.stdout and result.stdout.endswith("False\n")
