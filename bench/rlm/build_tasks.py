"""The fifth task family for the RLM accuracy bench (issue 54, item 5, written a second time): a CI
service's export as one pretty-printed JSON array of nested objects. Frozen at its commit, before any
further engine change, and never run until the measurement of record: the held-out family beside the
ledger (``ledger_tasks.py``) and the parcels (``parcel_tasks.py``), which earlier sessions have read.

The array mixes two kinds of object, in time order. A runner registered:
``{"runner_id": "RN-2817", "label": "...", "host": {"region": "eu-north", "arch": "arm64"}, "registered": ...}``.
A build: ``{"build_id": "B-123456", "runner_id": "RN-2817", "branch": "main", "trigger": "push",
"started": ..., "result": {"status": "failed", "minutes": 14}, "message": "..."}``; a message is free
text that may name other builds' statuses and branches. Six kinds:

* ``lookup``: the region a runner is hosted in, among look-alike runners (``RN-58213`` beside
  ``RN-582137``, ``RN-5821``, ``XRN-58213``, ``RN-58213-B``) hosted elsewhere; the runner's id is also
  on build objects, which name no region;
* ``count``: how many builds of one branch have one status, among messages naming that status and
  branch on builds that have neither;
* ``sum``: the total minutes of the builds with one status;
* ``aggregate`` (group-by argmax): the branch with the most failed builds, never the busiest branch;
* ``join``: a build names its runner; the region is on that runner's object, elsewhere in the array;
* ``absent``: the ``lookup`` question for a runner whose look-alikes are there but which is not.

``make_task(kind, size, seed)`` is deterministic for its arguments; ``score`` is log_tasks's.
"""

from __future__ import annotations

import json
import random

from log_tasks import NOT_PRESENT, Task, family_task, score

__all__ = ["KINDS", "NOT_PRESENT", "Task", "build_objects", "make_task", "score"]

KINDS = ("lookup", "count", "sum", "aggregate", "join", "absent")
FAMILY = "builds"

REGIONS = ("eu-north", "eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-east", "sa-east",
           "ca-central", "me-south", "af-south", "ap-north")
ARCHES = ("x86_64", "x86_64", "arm64")
LABELS = ("linux-large", "linux-small", "gpu", "macos", "docker", "windows")
BRANCHES = ("main", "develop", "release", "hotfix", "docs", "deps")
TRIGGERS = ("push", "push", "pull_request", "schedule", "manual")
STATUSES = ("passed", "passed", "passed", "passed", "passed", "failed", "cancelled", "timed_out", "skipped")
MESSAGES = ("", "", "", "bump version", "fix flaky test", "retry of a {s} build on {b}",
            "merge {b} into main", "revert: the last {s} run on {b} was a fluke", "update lockfile",
            "docs: why {b} builds were {s} last week", "speed up the cache step")


class _Export:
    """Filler objects: runners RN-1000..RN-4999 and builds B-100000..B-499999; the question's runners and
    builds are numbered above those ranges."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng, self.size = rng, size
        self.seconds = rng.randint(0, 86_400 * 20)
        self.branch_weights = [7, 4, 2, 2, 1, 1]  # main is the busiest branch overall
        self.failed_rate = {b: 0.03 for b in BRANCHES}

    def stamp(self) -> str:
        self.seconds += self.rng.randint(0, 9)
        day, rest = divmod(self.seconds, 86_400)
        return f"2026-06-{day % 28 + 1:02d}T{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}Z"

    def runner_id(self) -> str:
        return f"RN-{self.rng.randint(1000, 4999)}"

    def runner(self, runner: str | None = None, region: str | None = None) -> dict:
        rng = self.rng
        return {"runner_id": runner or self.runner_id(), "label": rng.choice(LABELS),
                "host": {"region": region or rng.choice(REGIONS), "arch": rng.choice(ARCHES)},
                "registered": f"20{rng.randint(21, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}

    def build(self, runner: str | None = None, build: str | None = None) -> dict:
        rng = self.rng
        branch = rng.choices(BRANCHES, weights=self.branch_weights)[0]
        status = "failed" if rng.random() < self.failed_rate[branch] else \
            rng.choice([s for s in STATUSES if s != "failed"])
        message = rng.choice(MESSAGES).format(s=rng.choice(STATUSES[5:]), b=rng.choice(BRANCHES))
        return {"build_id": build or f"B-{rng.randint(100000, 499999)}", "runner_id": runner or self.runner_id(),
                "branch": branch, "trigger": rng.choice(TRIGGERS), "started": self.stamp(),
                "result": {"status": status, "minutes": rng.randint(1, 90)}, "message": message}

    def text(self, special: list[tuple[float, dict]]) -> str:
        """About ``size`` characters: one JSON array (indent 2) of filler runners and builds (one runner in
        eight objects); each (fraction, object) of ``special`` goes at that fraction of the array."""
        def length(obj: dict) -> int:  # its characters in the array, its lines indented once more
            dumped = json.dumps(obj, indent=2)
            return len(dumped) + 2 * dumped.count("\n") + 6

        objects: list[dict] = []
        total = 2 + sum(length(obj) for _, obj in special)
        while total < self.size:
            obj = self.runner() if self.rng.random() < 0.125 else self.build()
            objects.append(obj)
            total += length(obj)
        for fraction, obj in sorted(special, key=lambda item: item[0], reverse=True):
            objects.insert(min(int(fraction * len(objects)), len(objects)), obj)
        return json.dumps(objects, indent=2)


def build_objects(text: str) -> list[dict]:
    """The build objects of an export (how the answers are computed)."""
    return [obj for obj in json.loads(text) if "build_id" in obj]


def _alike_runners(rng: random.Random, number: int) -> list[str]:
    """Runner ids a careless search confuses with ``RN-number``."""
    names = {f"RN-{number}{d}" for d in rng.sample(range(10), 3)}
    names |= {f"RN-{number // 10}", f"XRN-{number}", f"RN-{number}-B", f"rn-{number + 1}"}
    return sorted(names)


def _lookup(rng: random.Random, size: int, present: bool) -> tuple[str, str, str, tuple[str, ...]]:
    number = rng.randint(50000, 99999)
    target = f"RN-{number}"
    alikes = _alike_runners(rng, number)
    regions = rng.sample(REGIONS, len(alikes) + 1)
    export = _Export(rng, size)
    special = [(rng.random(), export.runner(name, region)) for name, region in zip(alikes, regions[1:], strict=True)]
    special += [(rng.random(), export.build(name)) for name in alikes for _ in range(2)]
    if present:
        special.append((rng.uniform(0.1, 0.9), export.runner(target, regions[0])))
        special += [(rng.random(), export.build(target)) for _ in range(3)]
    question = (f"In which region is the runner {target} hosted? Answer with the region name. "
                f"If no runner object has exactly the id {target}, answer {NOT_PRESENT}.")
    return question, regions[0] if present else NOT_PRESENT, export.text(special), tuple(regions[1:])


def _count(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    branch = rng.choice(BRANCHES[:4])
    text = export.text([])
    answer = sum(1 for b in build_objects(text) if b["branch"] == branch and b["result"]["status"] == "cancelled")
    question = f"How many builds on the branch {branch} have the status cancelled? Answer with the number."
    return question, str(answer), text, ()


def _sum(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    status = rng.choice(("timed_out", "skipped"))
    text = export.text([])
    answer = sum(b["result"]["minutes"] for b in build_objects(text) if b["result"]["status"] == status)
    question = (f"How many minutes did all builds with the status {status} take together? "
                "Answer with the number only.")
    return question, str(answer), text, ()


def _aggregate(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    winner = rng.choice(BRANCHES[1:])  # never main, the busiest branch overall
    export.failed_rate = {b: rng.uniform(0.02, 0.05) for b in BRANCHES}
    export.failed_rate[winner] = rng.uniform(0.5, 0.6)
    text = export.text([])
    failed: dict[str, int] = {}
    for b in build_objects(text):
        if b["result"]["status"] == "failed":
            failed[b["branch"]] = failed.get(b["branch"], 0) + 1
    answer = max(failed, key=failed.__getitem__)
    question = "Which branch has the most builds with the status failed? Answer with the branch name only."
    return question, answer, text, tuple(b for b in BRANCHES if b != answer)


def _join(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    pairs = 10
    runners = [f"RN-{n}" for n in rng.sample(range(50000, 99999), pairs)]
    builds = [f"B-{n}" for n in rng.sample(range(500000, 999999), pairs)]
    regions = rng.sample(REGIONS, pairs)
    special = [(rng.random(), export.runner(r, g)) for r, g in zip(runners, regions, strict=True)]
    special += [(rng.random(), export.build(r, b)) for r, b in zip(runners, builds, strict=True)]
    question = (f"Build {builds[0]} ran on a runner. In which region is that runner hosted? "
                "Answer with the region name.")
    return question, regions[0], export.text(special), tuple(regions[1:])


def make_task(kind: str, size: int, seed: int) -> Task:
    """The builds task of ``kind`` over about ``size`` characters of JSON (same arguments, same task).

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    return family_task(FAMILY, (_lookup, _count, _join), kind, size, seed, {"sum": _sum, "aggregate": _aggregate})
