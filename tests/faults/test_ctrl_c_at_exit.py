"""Issue 52, item 7: a Ctrl-C that lands once the command has returned, in the interpreter's exit
handlers (an atexit callback, the join of a thread left running), exits 130 without a traceback.
On main the default SIGINT handler was back by then and Python printed "Exception ignored in
atexit callback" with the KeyboardInterrupt's traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the codur command (its help), then an exit handler that says where it is and takes its time
SCRIPTS = {
    "atexit": ("import atexit, sys, time\nfrom codur.commands.app import main\n\n\ndef slow():\n"
               "    sys.stderr.write('in the exit handler\\n')\n    sys.stderr.flush()\n"
               "    for _ in range(400):\n        time.sleep(0.05)\n\n\natexit.register(slow)\nmain(['--help'])\n"),
    "thread join": ("import sys, threading, time\nfrom codur.commands.app import main\n\nDONE = threading.Event()"
                    "\n\n\ndef slow():\n    DONE.wait()\n"
                    "    sys.stderr.write('in the exit handler\\n')\n    sys.stderr.flush()\n"
                    "    for _ in range(400):\n        time.sleep(0.05)\n\n\n"
                    "threading.Thread(target=slow).start()\ntry:\n    main(['--help'])\nfinally:\n    DONE.set()\n"),
}


@pytest.mark.parametrize("where", sorted(SCRIPTS))
def test_ctrl_c_in_the_exit_handlers_exits_130_without_a_traceback(where: str) -> None:
    # the child gets Ctrl-C's default disposition, as a terminal's command has: a suite started in
    # the background (`nohup ... &`) ignores SIGINT, and a child would inherit that and never see it
    proc = subprocess.Popen([sys.executable, "-c", SCRIPTS[where]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    assert proc.stderr.readline() == "in the exit handler\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Usage: codur" in out  # what the command printed is all there
