"""bench/rlm's own tasks (issue 26, item 5): each log holds exactly the facts its question needs, the
scorer refuses distractors, and the runner works end to end with the scripted model (no real model)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rlm"
sys.path.insert(0, str(BENCH))  # accuracy.py imports its siblings log_tasks and niah


def _load(name):
    spec = importlib.util.spec_from_file_location(f"rlm_bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


accuracy = _load("accuracy")
log_tasks = sys.modules["log_tasks"]  # the module accuracy.py uses
KINDS, NOT_PRESENT, make_task, score = log_tasks.KINDS, log_tasks.NOT_PRESENT, log_tasks.make_task, log_tasks.score

SIZES = (50_000, 400_000)


def _target(task):
    return re.search(r"service (\S+) listen", task.question).group(1)


@pytest.mark.parametrize("kind", KINDS)
def test_tasks_are_deterministic_and_about_the_size_asked(kind):
    for size in SIZES:
        task = make_task(kind, size, 3)
        assert task == make_task(kind, size, 3)
        assert size <= len(task.context) < size * 1.05
    assert make_task(kind, 50_000, 0).context != make_task(kind, 50_000, 1).context
    with pytest.raises(ValueError):
        make_task("nope", 50_000, 0)


@pytest.mark.parametrize("seed", range(3))
def test_lookup_has_one_exact_line_among_look_alikes_and_absent_has_none(seed):
    for size in SIZES:
        task = make_task("lookup", size, seed)
        name = _target(task)
        exact = re.findall(rf"service={re.escape(name)} port=(\d+)\n", task.context)
        assert exact == [task.answer]
        loose = [line for line in task.context.splitlines() if name.lower() in line.lower()]
        assert len(loose) >= 4  # a plain substring search finds look-alikes too
        assert len(task.wrong) >= 6 and task.answer not in task.wrong
        absent = make_task("absent", size, seed)
        name = _target(absent)
        assert absent.answer == NOT_PRESENT
        assert not re.search(rf"service={re.escape(name)} ", absent.context)
        assert any(name.lower() in line.lower() for line in absent.context.splitlines())


@pytest.mark.parametrize("seed", range(3))
def test_count_answer_is_the_number_of_error_lines_in_every_written_form(seed):
    task = make_task("count", 400_000, seed)
    level = re.compile(r"^\S+ \S+ \[?(?:level=)?error\]? ", re.IGNORECASE)
    lines = task.context.splitlines()
    assert sum(1 for line in lines if level.match(line)) == int(task.answer) > 50
    assert sum(1 for line in lines if "error" in line.lower()) == int(task.answer)  # no other line says error
    assert sum(1 for line in lines if re.search(r"\bERROR\b", line)) < int(task.answer)  # case matters


@pytest.mark.parametrize("seed", range(3))
def test_join_facts_are_far_apart(seed):
    task = make_task("join", 400_000, seed)
    user = re.search(r"user (u-\d+)", task.question).group(1)
    placed = re.search(rf"user={user} placed order=(o-\d+)", task.context)
    shipped = re.search(rf"order={placed.group(1)} shipped from warehouse=(W-\d+)", task.context)
    assert shipped.group(1) == task.answer
    assert placed.start() < 0.25 * len(task.context) and shipped.start() > 0.75 * len(task.context)
    assert len(set(task.wrong)) == 11 and task.answer not in task.wrong


def test_score_takes_the_value_and_refuses_distractors():
    lookup = make_task("lookup", 50_000, 0)
    assert score(lookup, lookup.answer) and score(lookup, f"The port is {lookup.answer}.")
    assert not score(lookup, f"{lookup.answer} or {lookup.wrong[0]}") and not score(lookup, None)
    assert not score(lookup, lookup.answer + "0")
    count = make_task("count", 50_000, 0)
    assert score(count, count.answer) and score(count, f"There are {count.answer} ERROR lines.")
    assert not score(count, str(int(count.answer) + 1)) and not score(count, f"{count.answer} of 900")
    absent = make_task("absent", 50_000, 0)
    assert score(absent, "NOT PRESENT") and score(absent, "The port is not found in the log")
    assert not score(absent, absent.wrong[0]) and not score(absent, "")
    join = make_task("join", 50_000, 0)
    assert score(join, join.answer.lower()) and not score(join, f"{join.answer}, {join.wrong[0]}")


def test_runner_rows_summary_and_table_with_the_scripted_model():
    task = make_task("lookup", 50_000, 0)
    code = (f"```repl\nimport re\nanswer = re.search(r'service={_target(task)} port=(\\d+)', context).group(1)\n"
            "print(answer)\n```\nFINAL_VAR(answer)")
    model = ScriptedChatModel(replies=[code, f"It is {task.wrong[0]}."])
    rows = accuracy.run_all(model, [task], config=RLMConfig(max_iterations=2, max_depth=0), baseline_chars=8000)
    rlm, bare = rows
    assert (rlm["method"], rlm["answer"], rlm["correct"], rlm["source"]) == ("rlm", task.answer, True, "final_var")
    assert rlm["strict"] and not bare["strict"]
    assert rlm["printed"] == [f"{task.answer}\n"]  # what the answer checks read, kept for field_replay.py
    assert (bare["method"], bare["correct"], bare["calls"]) == ("baseline", False, 1)
    assert len(str(model.calls[1][0].content)) < 8500  # the baseline saw the truncated log only
    table = accuracy.summary(rows)
    assert [(e["method"], e["right"], e["runs"]) for e in table] == [("baseline", 0, 1), ("rlm", 1, 1)]
    text = accuracy.render(table)
    assert "| lookup | 50,000 | 1/1 · 1/1 |" in text and "| 0/1 · 0/1 |" in text


def test_strict_scoring_takes_the_answer_alone():
    count, lookup, absent = (make_task(kind, 50_000, 0) for kind in ("count", "lookup", "absent"))
    assert score(count, f"{count.answer} lines") and not score(count, f"{count.answer} lines", strict=True)
    assert score(count, f" {count.answer}\n", strict=True) and not score(count, f"{int(count.answer) + 1}", strict=True)
    assert score(lookup, f"port={lookup.answer}") and not score(lookup, f"port={lookup.answer}", strict=True)
    assert score(lookup, lookup.answer, strict=True)
    assert score(absent, "not present", strict=True) and not score(absent, "The service is not present", strict=True)


tickets = sys.modules["ticket_tasks"]  # the held-out family accuracy.py runs with --family tickets


def _ticket(task):
    return re.search(r"ticket (T-\d+) assigned", task.question).group(1)


@pytest.mark.parametrize("kind", KINDS)
def test_ticket_tasks_are_deterministic_their_own_and_about_the_size_asked(kind):
    task = tickets.make_task(kind, 50_000, 2)
    assert task == tickets.make_task(kind, 50_000, 2) and task.id == f"tickets:{kind}-50000-2"
    assert 50_000 <= len(task.context) < 52_500 and "service=" not in task.context
    assert task.context != make_task(kind, 50_000, 2).context


@pytest.mark.parametrize("seed", range(3))
def test_ticket_lookup_has_one_team_among_look_alike_tickets_and_absent_none(seed):
    task = tickets.make_task("lookup", 400_000, seed)
    name = _ticket(task)
    assert re.findall(rf"(?<![\w-]){name} assigned to team (\w+)\n", task.context) == [task.answer]
    alikes = [line for line in task.context.splitlines() if name.lower() in line.lower()
              and not re.search(rf"(?<![\w-]){name}(?![\w-])", line)]
    assert len(alikes) >= 4 and task.answer not in task.wrong and score(task, task.answer)
    absent = tickets.make_task("absent", 400_000, seed)
    name = _ticket(absent)
    assert absent.answer == NOT_PRESENT and not re.search(rf"(?<![\w-]){name}(?![\w-])", absent.context)
    assert any(name in line for line in absent.context.splitlines())
    assert score(absent, "NOT PRESENT") and not score(absent, absent.wrong[0])


@pytest.mark.parametrize("seed", range(3))
def test_ticket_count_and_join(seed):
    task = tickets.make_task("count", 400_000, seed)
    lines = task.context.splitlines()
    assert sum(1 for line in lines if re.search(r"resolution=duplicate$", line, re.IGNORECASE)) == int(task.answer)
    assert sum(1 for line in lines if "duplicate" in line.lower()) > int(task.answer) > 50  # comments say it too
    assert sum(1 for line in lines if "resolution=duplicate" in line) < int(task.answer)  # case matters
    join = tickets.make_task("join", 400_000, seed)
    source = re.search(r"Ticket (T-\d+) was merged", join.question).group(1)
    merged = re.search(rf"{source} merged into (T-\d+)", join.context)
    assigned = re.search(rf"{merged.group(1)} assigned to team (\w+)", join.context)
    assert assigned.group(1) == join.answer and join.answer not in join.wrong
    assert merged.start() < 0.25 * len(join.context) and assigned.start() > 0.75 * len(join.context)


@pytest.mark.parametrize("seed", range(3))
def test_ticket_aggregate_is_the_one_clear_p1_opener_not_the_busiest_opener(seed):
    task = tickets.make_task("aggregate", 400_000, seed)
    assert task == tickets.make_task("aggregate", 400_000, seed) and task.id == f"tickets:aggregate-400000-{seed}"
    p1 = Counter(re.findall(r" opened by (\S+) priority=P1 ", task.context)).most_common()
    overall = Counter(re.findall(r" opened by (\S+) priority=", task.context)).most_common()
    assert p1[0][0] == task.answer and p1[0][1] > p1[1][1] and overall[0][0] == task.wrong[0] != task.answer
    said = Counter(re.findall(r"comment by (\S+): .*P1", task.context))
    assert said[task.wrong[0]] > 0  # a loose count of lines naming P1 favours the busiest opener
    assert score(task, task.answer) and not score(task, task.wrong[0]) and 400_000 <= len(task.context) < 402_500


ledger = importlib.import_module("ledger_tasks")  # the held-out family of issue 40 (--family ledger)


def _records(task):
    return [json.loads(line) for line in task.context.splitlines()]


@pytest.mark.parametrize("kind", ledger.KINDS)
def test_ledger_tasks_are_deterministic_json_lines_about_the_size_asked(kind):
    task = ledger.make_task(kind, 50_000, 2)
    assert task == ledger.make_task(kind, 50_000, 2) and task.id == f"ledger:{kind}-50000-2"
    assert 49_000 <= len(task.context) < 52_500 and "service=" not in task.context
    assert all(record["event"] in ("payment", "account_opened") for record in _records(task))
    assert task.context != ledger.make_task(kind, 50_000, 3).context
    with pytest.raises(ValueError, match="unknown task kind"):
        ledger.make_task("median", 50_000, 0)


@pytest.mark.parametrize("seed", range(3))
def test_ledger_lookup_one_opening_among_look_alikes_and_absent_none(seed):
    task = ledger.make_task("lookup", 400_000, seed)
    name = re.search(r"account (ACC-\d+)\?", task.question).group(1)
    records = _records(task)
    opened = [r["holder"] for r in records if r.get("account") == name and r["event"] == "account_opened"]
    assert opened == [task.answer]
    assert sum(1 for r in records if r.get("account") == name) == 4  # its payments name it too, with no holder
    assert sum(1 for line in task.context.splitlines() if name.lower() in line.lower()) > 10  # look-alikes
    assert score(task, task.answer) and not score(task, f"{task.answer} or {task.wrong[0]}")
    absent = ledger.make_task("absent", 400_000, seed)
    name = re.search(r"account (ACC-\d+)\?", absent.question).group(1)
    assert absent.answer == NOT_PRESENT and not re.search(rf"(?<![\w-]){name}(?![\w-])", absent.context)
    assert any(name in line for line in absent.context.splitlines())


@pytest.mark.parametrize("seed", range(3))
def test_ledger_count_join_and_aggregate(seed):
    task = ledger.make_task("count", 400_000, seed)
    method = re.search(r"How many (\S+) payments", task.question).group(1)
    lines = task.context.splitlines()
    exact = sum(1 for r in _records(task) if r["event"] == "payment" and r["method"] == method
                and r["status"] == "failed")
    assert exact == int(task.answer) > 10
    assert sum(1 for line in lines if method in line and "failed" in line) > exact  # memos name both words
    join = ledger.make_task("join", 400_000, seed)
    payment = re.search(r"Payment (PAY-\d+)", join.question).group(1)
    records = _records(join)
    account = next(r["account"] for r in records if r.get("payment") == payment)
    opened = [i for i, r in enumerate(records) if r["event"] == "account_opened" and r["account"] == account]
    paid = next(i for i, r in enumerate(records) if r.get("payment") == payment)
    assert len(opened) == 1 and records[opened[0]]["city"] == join.answer and join.answer not in join.wrong
    assert paid < 0.25 * len(records) < 0.7 * len(records) < opened[0]
    agg = ledger.make_task("aggregate", 400_000, seed)
    failed = {}
    for r in _records(agg):
        if r["status" if "status" in r else "event"] == "failed":
            failed[r["method"]] = failed.get(r["method"], 0) + 1
    ranked = sorted(failed, key=failed.get, reverse=True)
    assert ranked[0] == agg.answer != "card" and failed[ranked[0]] > 1.2 * failed[ranked[1]]
    uses = {}
    for r in _records(agg):
        if r["event"] == "payment":
            uses[r["method"]] = uses.get(r["method"], 0) + 1
    assert max(uses, key=uses.get) == "card"  # the most failed is not the most used
    assert score(agg, agg.answer) and not score(agg, f"{agg.answer}, then card")


parcels = importlib.import_module("parcel_tasks")  # the held-out family of issue 54 (--family parcels)


@pytest.mark.parametrize("kind", parcels.KINDS)
def test_parcel_tasks_are_two_csv_tables_deterministic_about_the_size_asked(kind):
    task = parcels.make_task(kind, 50_000, 2)
    assert task == parcels.make_task(kind, 50_000, 2) and task.id == f"parcels:{kind}-50000-2"
    assert 49_000 <= len(task.context) < 53_000 and "service=" not in task.context and "{" not in task.context
    couriers, rows = task.context.split("\n\n")
    assert couriers.startswith("courier_id,name,home_depot,") and rows.startswith("parcel_id,courier_id,")
    assert task.context != parcels.make_task(kind, 50_000, 3).context
    with pytest.raises(ValueError, match="unknown task kind"):
        parcels.make_task("median", 50_000, 0)


def test_parcel_answers_follow_from_the_tables():
    lookup = parcels.make_task("lookup", 400_000, 1)
    name = re.search(r"courier (CR-\d+) based", lookup.question).group(1)
    assert len(re.findall(rf"\n{name},[^,\n]+,{lookup.answer},", lookup.context)) == 1
    assert sum(1 for line in lookup.context.splitlines() if name.lower() in line.lower()) > 10  # look-alikes
    absent = parcels.make_task("absent", 400_000, 1)
    gone = re.search(r"courier (CR-\d+) based", absent.question).group(1)
    assert absent.answer == NOT_PRESENT and not re.search(rf"(?<![\w-]){gone}(?![\w-])", absent.context)
    count = parcels.make_task("count", 400_000, 1)
    rows = parcels.parcel_rows(count.context)
    assert int(count.answer) > 10 and sum(1 for line in count.context.splitlines() if "returned" in line) > \
        sum(1 for row in rows if row["status"] == "returned")  # notes say the word too
    agg = parcels.make_task("aggregate", 400_000, 1)
    zones = Counter(row["zone"] for row in parcels.parcel_rows(agg.context))
    assert zones.most_common(1)[0][0] == "north" != agg.answer and score(agg, agg.answer)
    join = parcels.make_task("join", 400_000, 1)
    parcel = re.search(r"Parcel (PX-\d+)", join.question).group(1)
    courier = next(r["courier_id"] for r in parcels.parcel_rows(join.context) if r["parcel_id"] == parcel)
    assert re.search(rf"\n{courier},[^,\n]+,{join.answer},", join.context)


builds = importlib.import_module("build_tasks")  # issue 54's second held-out family (--family builds)


@pytest.mark.parametrize("kind", builds.KINDS)
def test_build_tasks_are_one_json_array_deterministic_about_the_size_asked(kind):
    task = builds.make_task(kind, 50_000, 2)
    assert task == builds.make_task(kind, 50_000, 2) and task.id == f"builds:{kind}-50000-2"
    assert 48_000 <= len(task.context) < 54_000 and task.context.startswith("[\n  {")
    objects = json.loads(task.context)
    assert {"runner_id", "host"} <= set(objects[0]) or {"build_id", "result"} <= set(objects[0])
    assert task.context != builds.make_task(kind, 50_000, 3).context
    with pytest.raises(ValueError, match="unknown task kind"):
        builds.make_task("median", 50_000, 0)


def test_build_answers_follow_from_the_objects():
    lookup = builds.make_task("lookup", 400_000, 1)
    name = re.search(r"runner (RN-\d+) hosted", lookup.question).group(1)
    runners = [o for o in json.loads(lookup.context) if o["runner_id"] == name and "host" in o]
    assert [o["host"]["region"] for o in runners] == [lookup.answer]
    assert lookup.context.count(f'"{name}') > 10  # look-alikes and its builds
    absent = builds.make_task("absent", 400_000, 1)
    gone = re.search(r"runner (RN-\d+) hosted", absent.question).group(1)
    assert absent.answer == NOT_PRESENT and not re.search(rf"(?<![\w-]){gone}(?![\w-])", absent.context)
    count = builds.make_task("count", 400_000, 1)
    assert int(count.answer) > 10 and count.context.count("cancelled") > \
        sum(1 for b in builds.build_objects(count.context) if b["result"]["status"] == "cancelled")  # messages too
    agg = builds.make_task("aggregate", 400_000, 1)
    branches = Counter(b["branch"] for b in builds.build_objects(agg.context))
    assert branches.most_common(1)[0][0] == "main" != agg.answer and score(agg, agg.answer)
    join = builds.make_task("join", 400_000, 1)
    build = re.search(r"Build (B-\d+)", join.question).group(1)
    runner = next(b["runner_id"] for b in builds.build_objects(join.context) if b["build_id"] == build)
    assert [o["host"]["region"] for o in json.loads(join.context) if o.get("runner_id") == runner and "host" in o] \
        == [join.answer]


def test_the_record_table_counts_each_task_once_strict_and_lenient_per_size(tmp_path):
    record = _load("record_table")

    def row(task, kind, size, strict, correct, seconds):
        return {"task": task, "kind": kind, "size": size, "strict": strict, "correct": correct, "seconds": seconds,
                "answer": "x", "expected": "y", "source": "final_var", "iterations": 2}

    first, rerun = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in (
        row("builds:sum-50000-0", "sum", 50_000, True, True, 40),
        row("builds:sum-50000-1", "sum", 50_000, False, True, 60),
        row("count-400000-0", "count", 400_000, True, True, 30))))
    rerun.write_text(json.dumps(row("builds:sum-50000-0", "sum", 50_000, False, False, 90)) + "\n")  # counted once
    text = record.table(record.load([first, rerun]))
    assert "| builds (held out) | sum | 1/2 · 2/2 (50 s) | – | – |" in text
    assert "| logs | count | – | 1/1 (30 s) | – |" in text
    assert "| 50k | – | 1/2 (50%) | – |" in text and "Misses (1):" in text and "builds:sum-50000-1" in text
