"""Issue 36, item 3: the risky-patch gate resolves names (aliases, ``from x import y as z``,
assignments, literal dynamic imports, ``getattr``) and treats computed names as risky, so each
escape below is flagged and the write refused (codur.tools.risk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.tools import ToolExecutor
from codur.tools.risk import added

BEFORE = "import os\nimport re\n\n\ndef total(xs):\n    return sum(xs)\n"

ESCAPES = {
    "import as": ("import os as o\n\n\ndef f():\n    o.system('id')\n", "process: os.system(...) (as o.system)"),
    "from import as": ("from os import system as s\n\n\ndef f():\n    s('id')\n", "process: os.system(...) (as s)"),
    "module bound to a name": ("m = os\n\n\ndef f():\n    m.popen('id')\n", "process: os.popen(...) (as m.popen)"),
    "function bound to a name": ("run = os.system\n\n\ndef f():\n    run('id')\n", "process: os.system(...) (as run)"),
    "import_module of a concatenation": (
        "import importlib\n\n\ndef f():\n    importlib.import_module('soc' + 'ket').create_connection(('h', 1))\n",
        "network: socket.create_connection(...) (as importlib.import_module('soc' + 'ket').create_connection)"),
    "import_module of a constant": (
        "import importlib\nMOD = 'sub' + 'process'\n\n\ndef f():\n    importlib.import_module(MOD).run(['id'])\n",
        "process: subprocess.run(...) (as importlib.import_module(MOD).run)"),
    "import_module of a computed name": ("import importlib\n\n\ndef f(n):\n    importlib.import_module(n)\n",
                                         "dynamic code: importlib.import_module() of a computed module name"),
    "from importlib import as": ("from importlib import import_module as im\n\n\ndef f():\n    im('subprocess')\n",
                                 "process: subprocess (as im('subprocess'))"),
    "__import__ literal": ("def f():\n    __import__('os').system('id')\n",
                           "process: os.system(...) (as __import__('os').system)"),
    "__import__ computed": ("def f(n):\n    __import__(n)\n", "dynamic code: __import__() of a computed module name"),
    "getattr literal": ("def f():\n    getattr(os, 'sys' + 'tem')('id')\n",
                        "process: os.system(...) (as getattr(os, 'sys' + 'tem'))"),
    "getattr computed": ("def f(n):\n    getattr(os, n)('id')\n",
                         "dynamic code: getattr(os, ...) with a computed name"),
    "getattr on builtins": ("import builtins\n\n\ndef f(x):\n    getattr(builtins, 'ev' + 'al')(x)\n",
                            "dynamic code: eval(...) (as getattr(builtins, 'ev' + 'al'))"),
    "__builtins__ subscript": ("def f(x):\n    __builtins__['exec'](x)\n",
                               "dynamic code: exec(...) (as __builtins__['exec'])"),
    "sys.modules": ("import sys\n\n\ndef f():\n    sys.modules['os'].system('id')\n",
                    "process: os.system(...) (as sys.modules['os'].system)"),
    "compile": ("def f(x):\n    return compile(x, 'a', 'exec')\n", "dynamic code: compile(...)"),
    "reference, not a call": ("def f(cmds):\n    return list(map(os.system, cmds))\n", "process: os.system"),
    "subclasses escape": ("def f():\n    return ().__class__.__base__.__subclasses__()\n",
                          "dynamic code: .__subclasses__"),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_each_escape_is_found_through_its_alias(name: str) -> None:
    code, finding = ESCAPES[name]
    assert finding in added(BEFORE, BEFORE + "\n\n" + code)


def test_plain_code_with_look_alike_names_is_not_flagged() -> None:
    plain = ("\n\ndef g(self, name, x):\n    p = re.compile(x)\n"
             "    return getattr(self, 'total', None), p, self.eval(), name.system(), x.__class__.__name__\n")
    assert added(BEFORE, BEFORE + plain) == []


def test_what_the_allowlist_lacks_is_flagged_even_when_harmless() -> None:
    """Issue 52: the gate allows what it knows; a module it does not know is flagged, however it is used."""
    more = "\n\ndef g(self, name):\n    return getattr(self, name), os.path.join('a', 'b'), os.environ.get('HOME')\n"
    assert added(BEFORE, BEFORE + more) == [
        "dynamic code: getattr(self, ...) with a computed name", "not on the allowlist: os.environ.get(...)",
        "not on the allowlist: os.path.join(...)"]


@pytest.mark.parametrize("name", ["import as", "import_module of a concatenation", "getattr computed",
                                  "__import__ literal"])
def test_the_alias_payload_is_refused_and_not_written(tmp_path: Path, name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text(BEFORE)
    payload = BEFORE + "\n\n" + ESCAPES[name][0]
    events: list[dict] = []
    result = ToolExecutor(repo, on_event=events.append).execute("write_file", {"path": "calc.py", "content": payload})
    assert not result.ok and "risky code" in result.output and ESCAPES[name][1] in result.output
    assert (repo / "calc.py").read_text() == BEFORE
    assert [e["approved"] for e in events if e["event_type"] == "patch.risky"] == [False]
