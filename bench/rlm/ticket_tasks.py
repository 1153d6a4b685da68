"""A second task family for the RLM accuracy bench, written after the engine's checks: a support
desk's ticket log, a shape the checks were never tuned on (``log_tasks.py`` is the service log
they were designed on).

The same four kinds, asked another way:

* ``lookup``: the team a ticket was assigned to, among look-alike tickets (``T-5821`` beside
  ``T-58213``, ``T-582``, ``XT-5821``, ``T-5821-b``) each assigned to another team;
* ``count``: how many times a ticket was resolved as a duplicate, the resolution written in mixed
  case, among comments that say "duplicate" without resolving anything;
* ``join``: a ticket merged into another early in the log; the other ticket's team is named late;
* ``absent``: the ``lookup`` question for a ticket whose look-alikes are there but which is not;
* ``aggregate`` (after OOLONG's aggregation over categories; added after issue 40's measurement of
  record, a development set for aggregates): the person who opened the most P1 tickets, who is not
  the person who opened the most tickets overall, with comments by that other person that say P1.

``make_task(kind, size, seed)`` is deterministic for its arguments; ``score`` is log_tasks's
(the value as a whole token, no distractor's value beside it, NOT PRESENT in words).
"""

from __future__ import annotations

import random
import re
from collections import Counter

from log_tasks import KINDS as LOG_KINDS
from log_tasks import NOT_PRESENT, Task, _Log, family_task, score

__all__ = ["KINDS", "NOT_PRESENT", "Task", "make_task", "score"]

KINDS = (*LOG_KINDS, "aggregate")

TEAMS = ("atlas", "falcon", "harbor", "juniper", "kestrel", "lumen", "meridian", "nimbus", "orchid",
         "pioneer", "quartz", "sequoia", "tundra", "vega")
PEOPLE = ("priya.n", "sam.o", "lena.k", "omar.b", "jo.w", "mika.t", "ines.r", "tom.h")
SUBJECTS = ("checkout button does nothing", "invoice PDF is blank", "login loops back to the start page",
            "search returns stale items", "export to CSV times out", "password reset mail never arrives",
            "cart total is off by one cent", "avatar upload fails on large files")
COMMENTS = ("can reproduce on staging", "customer sent a screenshot", "needs a log from the client",
            "waiting on the vendor", "fix is in review", "asked for the browser version")
RESOLUTIONS = ("fixed", "fixed", "wontfix", "cannot-reproduce", "works-as-designed")
DUPLICATE_FORMS = ("duplicate", "Duplicate", "DUPLICATE")


class _Desk(_Log):
    """Filler ticket events for tickets T-1000..T-4999; the question's tickets are T-5000 and up."""

    def ticket(self) -> str:
        return f"T-{self.rng.randint(1000, 4999)}"

    def filler(self) -> str:
        rng, ticket = self.rng, self.ticket()
        roll = rng.random()
        if roll < 0.3:
            event = f"opened by {rng.choice(PEOPLE)} priority=P{rng.randint(1, 4)} subject=\"{rng.choice(SUBJECTS)}\""
        elif roll < 0.55:
            event = f"comment by {rng.choice(PEOPLE)}: \"{rng.choice(COMMENTS)}\""
        elif roll < 0.75:
            event = f"assigned to team {rng.choice(TEAMS)}"
        elif roll < 0.78:  # says "duplicate" but resolves nothing: a loose count overcounts
            event = f"comment by {rng.choice(PEOPLE)}: \"maybe a duplicate of {self.ticket()}?\""
        else:
            event = f"status open -> resolved resolution={rng.choice(RESOLUTIONS)}"
        return f"{self.stamp()} {ticket} {event}"


def _alike_tickets(rng: random.Random, number: int) -> list[str]:
    """Ticket ids a careless search confuses with ``T-number``."""
    names = {f"T-{number}{d}" for d in rng.sample(range(10), 3)}
    names |= {f"T-{number // 10}", f"XT-{number}", f"T-{number}-b", f"t-{number + 1}"}
    return sorted(names)


def _lookup(rng: random.Random, size: int, present: bool) -> tuple[str, str, str, tuple[str, ...]]:
    number = rng.randint(5000, 9999)
    target = f"T-{number}"
    alikes = _alike_tickets(rng, number)
    teams = rng.sample(TEAMS, len(alikes) + 1)
    desk = _Desk(rng, size)
    special = [(rng.random(), f"{name} assigned to team {team}") for name, team in zip(alikes, teams[1:], strict=True)]
    if present:
        at = rng.uniform(0.1, 0.8)
        special += [(at, f"{target} opened by {rng.choice(PEOPLE)} priority=P2 subject=\"{rng.choice(SUBJECTS)}\""),
                    (at + 0.05, f"{target} assigned to team {teams[0]}"),
                    (at + 0.1, f"{target} status open -> resolved resolution=fixed")]
    question = (f"Which team was ticket {target} assigned to? Answer with the team name. "
                f"If the log names no team for exactly {target}, answer {NOT_PRESENT}.")
    return question, teams[0] if present else NOT_PRESENT, desk.build(special), tuple(teams[1:])


def _count(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    desk = _Desk(rng, size)
    context, duplicates = desk.counted(rng.uniform(0.02, 0.05), lambda: (
        f"{desk.stamp()} {desk.ticket()} status open -> resolved resolution={rng.choice(DUPLICATE_FORMS)}"))
    question = ("How many times was a ticket resolved with the resolution duplicate? The resolution may be "
                "written in any case. Answer with the number.")
    return question, str(duplicates), context, ()


def _join(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    desk = _Desk(rng, size)
    pairs = 10
    numbers = rng.sample(range(5000, 9999), 2 * pairs)
    teams = [rng.choice(TEAMS) for _ in range(pairs)]
    special = []
    for i in range(pairs):
        source, into = f"T-{numbers[2 * i]}", f"T-{numbers[2 * i + 1]}"
        merged = rng.uniform(0.02, 0.2) if i == 0 else rng.uniform(0.02, 0.9)
        assigned = rng.uniform(0.8, 0.98) if i == 0 else rng.uniform(merged, 0.99)
        special.append((merged, f"{source} merged into {into}"))
        special.append((assigned, f"{into} assigned to team {teams[i]}"))
    question = (f"Ticket T-{numbers[0]} was merged into another ticket. Which team was that other ticket "
                "assigned to? Answer with the team name.")
    wrong = tuple(dict.fromkeys(t for t in teams[1:] if t != teams[0]))
    return question, teams[0], desk.build(special), wrong


def _aggregate(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    winner, busiest = rng.sample(PEOPLE, 2)
    for _ in range(20):
        desk = _Desk(rng, size)

        def line(desk: _Desk = desk) -> str:
            roll, head = rng.random(), f"{desk.stamp()} {desk.ticket()}"
            if roll < 0.35:
                return f"{head} opened by {winner} priority=P1 subject=\"{rng.choice(SUBJECTS)}\""
            if roll < 0.8:
                return f"{head} opened by {busiest} priority=P{rng.randint(3, 4)} subject=\"{rng.choice(SUBJECTS)}\""
            return f"{head} comment by {busiest}: \"customer calls this P1\""
        context, _ = desk.counted(0.05, line)
        p1 = Counter(re.findall(r" opened by (\S+) priority=P1 ", context)).most_common(2)
        overall = Counter(re.findall(r" opened by (\S+) priority=", context)).most_common(1)[0][0]
        if p1[0][1] > p1[1][1] and overall != p1[0][0]:
            question = "Which person opened the most tickets with priority P1? Answer with the person's name."
            return question, p1[0][0], context, (overall,)
    raise RuntimeError("no ticket log with one clear P1 opener in 20 tries")


def make_task(kind: str, size: int, seed: int) -> Task:
    """The ticket task of ``kind`` over a log of about ``size`` characters (same arguments, same task).

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    if kind == "aggregate":
        if size < 5_000:
            raise ValueError("a task log needs at least 5,000 characters")
        question, answer, context, wrong = _aggregate(random.Random(f"tickets:{kind}:{size}:{seed}"), size)
        return Task(kind, size, seed, question, answer, context, wrong, "tickets")
    return family_task("tickets", (_lookup, _count, _join), kind, size, seed)
