"""The CPU budget's arithmetic: cores from the affinity mask and a cgroup quota (files in the real
formats, and the real os calls), the model's threads, and the test runs it allows."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codur.core import cpu


def test_cgroup_v2_cpu_max_lines():
    assert cpu.parse_cpu_max("150000 100000\n") == 1.5
    assert cpu.parse_cpu_max("200000 100000") == 2.0
    assert cpu.parse_cpu_max("max 100000\n") is None  # no quota
    assert cpu.parse_cpu_max("50000") == 0.5  # the period left at its default
    with pytest.raises(ValueError):
        cpu.parse_cpu_max("1 2 3")


def test_cgroup_v1_cfs_files():
    assert cpu.parse_cfs("-1\n", "100000\n") is None  # no quota
    assert cpu.parse_cfs("50000\n", "100000\n") == 0.5
    assert cpu.parse_cfs("300000", "100000") == 3.0


def test_cgroup_v2_quota_is_the_smallest_on_the_way_up(tmp_path: Path):
    (tmp_path / "proc").write_text("0::/user.slice/codur.scope\n")
    root = tmp_path / "cg"
    (root / "user.slice" / "codur.scope").mkdir(parents=True)
    (root / "user.slice" / "codur.scope" / "cpu.max").write_text("max 100000\n")
    (root / "user.slice" / "cpu.max").write_text("150000 100000\n")
    (root / "cpu.max").write_text("400000 100000\n")
    assert cpu.cgroup_quota(root, tmp_path / "proc") == 1.5
    (root / "user.slice" / "cpu.max").write_text("max 100000\n")
    (root / "cpu.max").unlink()
    assert cpu.cgroup_quota(root, tmp_path / "proc") is None


def test_cgroup_v1_quota_of_the_cpu_controller(tmp_path: Path):
    (tmp_path / "proc").write_text("12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n")
    own = tmp_path / "cg" / "cpu,cpuacct" / "docker" / "abc"
    own.mkdir(parents=True)
    (own / "cpu.cfs_quota_us").write_text("250000\n")
    (own / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu.cgroup_quota(tmp_path / "cg", tmp_path / "proc") == 2.5
    (own / "cpu.cfs_quota_us").write_text("-1\n")
    assert cpu.cgroup_quota(tmp_path / "cg", tmp_path / "proc") is None


def test_usable_cores_cuts_the_affinity_to_the_quota_rounded_up():
    assert cpu.usable_cores(affinity=8, quota=1.5) == 2
    assert cpu.usable_cores(affinity=8, quota=2.0) == 2
    assert cpu.usable_cores(affinity=2, quota=4.0) == 2
    assert cpu.usable_cores(affinity=4, quota=0.2) == 1
    assert cpu.usable_cores(affinity=3, quota=None) == 3


def test_usable_cores_from_this_machine():
    quota = cpu.cgroup_quota()
    expected = len(os.sched_getaffinity(0))
    if quota is not None:
        expected = min(expected, math.ceil(quota))
    assert cpu.usable_cores() == max(1, expected)
    assert cpu.budget().cores == cpu.usable_cores()


def test_a_process_pinned_to_one_cpu_gets_one_core():
    one = min(os.sched_getaffinity(0))
    code = (f"import os; os.sched_setaffinity(0, {{{one}}}); from codur.core import cpu; "
            "print(cpu.usable_cores(), cpu.model_threads(cpu.usable_cores()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.stdout.split() == ["1", "1"]


def test_model_threads_take_half_the_cores_past_two():
    assert [cpu.model_threads(n) for n in (1, 2, 3, 4, 8, 16, 64)] == [1, 2, 2, 2, 4, 8, 8]


def test_test_slots_while_the_model_generates_and_waits():
    budget = cpu.CpuBudget(2, "idle")
    assert budget.test_slots(4) == 2 and budget.test_slots(4, background=True) == 2  # all cores, not 4
    with budget.generating(2):
        assert budget.model_threads_busy == 2
        assert budget.test_slots(4) == 1  # a sample is still tested
        assert budget.test_slots(4, background=True) == 1 and budget.background_idle()  # at SCHED_IDLE
    assert budget.test_slots(4, background=True) == 2 and not budget.background_idle()
    pause = cpu.CpuBudget(2)  # the default
    assert pause.while_generating == "pause"
    with pause.generating(2):
        assert pause.test_slots(4) == 1
        assert pause.test_slots(4, background=True) == 0 and not pause.background_idle()
    assert pause.test_slots(4, background=True) == 2
    big = cpu.CpuBudget(8)
    with big.generating(4), big.generating(4):  # two calls, one server: its 4 threads
        assert big.test_slots(6) == 4 and big.test_slots(6, background=True) == 4
        assert not big.background_idle()
    with big.generating(0):  # a remote model: nothing of ours
        assert big.test_slots(6) == 6


def test_generating_counts_calls_from_many_threads():
    budget = cpu.CpuBudget(2)
    inside, leave = threading.Barrier(3), threading.Event()

    def call() -> None:
        with budget.generating(2):
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert budget.model_threads_busy == 2
    leave.set()
    for t in threads:
        t.join()
    assert budget.model_threads_busy == 0
