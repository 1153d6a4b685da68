"""Long-log question tasks of our own for the RLM accuracy bench (issue 26, item 5).

Every task is a service log written here by a seeded generator (nothing is copied from a
public benchmark) and one question with one right answer:

* ``lookup``: the port of one service among look-alike names (``billing-46`` beside
  ``billing-460``, ``billing-4``, ``billings-46``, ``billing-46-canary``...);
* ``count``: how many lines have the level ERROR, written in mixed case and formats
  (``ERROR``, ``error``, ``[Error]``, ``level=error``) over every part of the log;
* ``join``: two facts far apart: a user's order is placed in the first fifth of the log,
  its warehouse is named in the last fifth, among other orders and shipments;
* ``absent``: the ``lookup`` question for a service whose look-alikes are present but
  which itself is not: the answer is NOT PRESENT.

``make_task(kind, size, seed)`` is deterministic for its arguments; ``score(task, answer)``
says whether an answer is right (the value, and no distractor's value beside it).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

KINDS = ("lookup", "count", "join", "absent")
NOT_PRESENT = "NOT PRESENT"
NUMERIC_KINDS = ("count", "sum")  # answers that are one whole number
ABSENT_WORDS = ("not present", "not found", "absent", "no such", "does not", "doesn't", "no port", "none")

SERVICES = ("api-gateway", "auth", "catalog", "search", "notifier", "scheduler", "ledger", "inventory",
            "profile", "media", "reports", "sessions")
NAME_WORDS = ("billing", "payments", "invoices", "checkout", "refunds", "pricing", "coupons", "tax")
PATHS = ("/v1/orders", "/v1/users/me", "/v2/catalog/items", "/health", "/v1/cart", "/v1/login", "/v2/search")
EVENTS = ("request served", "cache hit", "cache miss", "connection opened", "connection closed",
          "job queued", "job finished", "token refreshed", "config reloaded", "heartbeat")
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN")
ERROR_FORMS = ("ERROR", "error", "Error", "[ERROR]", "[error]", "level=error", "level=ERROR")
ERROR_EVENTS = ("payment declined by provider", "timeout talking to the database", "disk quota exceeded",
                "upstream returned 502", "could not parse the request body", "lock wait exceeded")


@dataclass(frozen=True)
class Task:
    """One question over one generated log.

    Attributes:
        kind: one of :data:`KINDS`. size: the log's length asked for, characters. seed: the generator's seed.
        question: the question asked. answer: the right answer (a port, a count, a warehouse, NOT PRESENT).
        context: the log. wrong: values of distractors; an answer naming one of them is wrong.
        family: which generator wrote it (``logs`` here, ``tickets`` in ticket_tasks.py).
    """

    kind: str
    size: int
    seed: int
    question: str
    answer: str
    context: str = field(repr=False)
    wrong: tuple[str, ...] = ()
    family: str = "logs"

    @property
    def id(self) -> str:
        own = f"{self.kind}-{self.size}-{self.seed}"
        return own if self.family == "logs" else f"{self.family}:{own}"


class _Log:
    """Filler log lines with a clock, and special lines put at chosen fractions of the log."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng, self.size = rng, size
        self.seconds = rng.randint(0, 86_400 * 20)

    def stamp(self) -> str:
        self.seconds += self.rng.randint(0, 4)
        day, rest = divmod(self.seconds, 86_400)
        return f"2026-03-{day % 28 + 1:02d} {rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"

    def filler(self) -> str:
        rng = self.rng
        service = rng.choice(SERVICES)
        if rng.random() < 0.05:  # other services' config lines, so grep("port") is no shortcut
            return f"{self.stamp()} INFO config service={service}-{rng.randint(1, 99)} port={rng.randint(20000, 65000)}"
        return (f"{self.stamp()} {rng.choice(LEVELS)} {service} {rng.choice(EVENTS)} "
                f"req={rng.getrandbits(32):08x} path={rng.choice(PATHS)} latency_ms={rng.randint(1, 900)}")

    def counted(self, rate: float, make_line) -> tuple[str, int]:
        """About ``size`` characters of filler where each line is, with probability ``rate``, one of
        ``make_line()`` instead: the log and how many of those lines it holds."""
        made = 0

        def line() -> str:
            nonlocal made
            if self.rng.random() >= rate:
                return self.filler()
            made += 1
            return make_line()

        return self.build([], line), made

    def build(self, special: list[tuple[float, str]], make_line=None) -> str:
        """About ``size`` characters of lines; each (fraction, line body) of ``special`` goes at that
        fraction, stamped with the time of the line before it."""
        make_line = make_line or self.filler
        lines, total = [], 0
        while total < self.size:
            line = make_line()
            lines.append(line)
            total += len(line) + 1
        for fraction, body in sorted(special, key=lambda item: item[0], reverse=True):
            at = min(int(fraction * len(lines)), len(lines))
            lines.insert(at, f"{lines[max(at - 1, 0)][:19]} {body}")
        return "\n".join(lines) + "\n"


def _look_alikes(rng: random.Random, word: str, number: int) -> list[str]:
    """Service names a careless search confuses with ``word-number``."""
    names = {f"{word}-{number}{d}" for d in rng.sample(range(10), 3)}
    names |= {f"{word}-{number // 10 or number + 1}", f"{word}s-{number}", f"{word}-{number}-canary",
              f"{word}-{str(number)[::-1]}" if str(number)[::-1] != str(number) else f"{word}-{number + 2}",
              f"pre{word}-{number}", f"{word.upper()}-{number + 1}"}
    names.discard(f"{word}-{number}")
    return sorted(names)


def _ports(rng: random.Random, n: int) -> list[int]:
    return rng.sample(range(20000, 65000), n)


def _lookup(rng: random.Random, size: int, present: bool) -> tuple[str, str, str, tuple[str, ...]]:
    word, number = rng.choice(NAME_WORDS), rng.randint(12, 89)
    target = f"{word}-{number}"
    alikes = _look_alikes(rng, word, number)
    ports = _ports(rng, len(alikes) + 1)
    log = _Log(rng, size)
    special = [(rng.random(), f"INFO config service={name} port={port}")
               for name, port in zip(alikes, ports[1:], strict=True)]
    if present:
        special.append((rng.uniform(0.1, 0.9), f"INFO config service={target} port={ports[0]}"))
    question = (f"Which port does the service {target} listen on? Answer with the port number. "
                f"If the log gives no port for exactly {target}, answer {NOT_PRESENT}.")
    answer = str(ports[0]) if present else NOT_PRESENT
    return question, answer, log.build(special), tuple(str(p) for p in ports[1:])


def _count(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    log = _Log(rng, size)
    context, errors = log.counted(rng.uniform(0.03, 0.08), lambda: (
        f"{log.stamp()} {rng.choice(ERROR_FORMS)} {rng.choice(SERVICES)} {rng.choice(ERROR_EVENTS)} "
        f"req={rng.getrandbits(32):08x}"))
    question = ("How many log lines have the level ERROR? The level may be written in any case, "
                "in brackets or as level=error. Answer with the number.")
    return question, str(errors), context, ()


def _join(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    log = _Log(rng, size)
    pairs = 12
    users = rng.sample(range(1000, 9999), pairs)
    orders = rng.sample(range(10000, 99999), pairs)
    houses = [f"W-{n:02d}" for n in rng.sample(range(1, 99), pairs)]
    special = []
    for i, (user, order, house) in enumerate(zip(users, orders, houses, strict=True)):
        placed = rng.uniform(0.02, 0.2) if i == 0 else rng.uniform(0.02, 0.98)
        shipped = rng.uniform(0.8, 0.98) if i == 0 else rng.uniform(placed, 0.99)
        special.append((placed, f"INFO orders user=u-{user} placed order=o-{order} "
                                f"items={rng.randint(1, 9)}"))
        special.append((shipped, f"INFO shipping order=o-{order} shipped from warehouse={house}"))
    question = (f"From which warehouse was the order placed by user u-{users[0]} shipped? "
                "Answer with the warehouse id.")
    return question, houses[0], log.build(special), tuple(houses[1:])


def make_task(kind: str, size: int, seed: int) -> Task:
    """The task of ``kind`` over a log of about ``size`` characters; the same arguments give the same task.

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    return family_task("logs", (_lookup, _count, _join), kind, size, seed)


Generator = Callable[..., tuple[str, str, str, tuple[str, ...]]]


def family_task(family: str, generators: tuple[Generator, Generator, Generator], kind: str, size: int,
                seed: int, more: dict[str, Generator] | None = None) -> Task:
    """A task of ``family`` from its (lookup, count, join) generators: ``lookup(rng, size, present)``
    (present False: the ``absent`` kind), ``count(rng, size)``, ``join(rng, size)``, and the family's
    ``more`` kinds (``{"sum": make}``), each returning (question, answer, context, wrong). Seeded by
    family, kind, size and seed.

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    lookup, count, join = generators
    makers = {"count": count, "join": join, **(more or {})}
    if kind not in ("lookup", "absent", *makers):
        raise ValueError(f"unknown task kind {kind!r}; known: {', '.join(('lookup', 'absent', *makers))}")
    if size < 5_000:
        raise ValueError("a task log needs at least 5,000 characters")
    rng = random.Random(f"{kind}:{size}:{seed}" if family == "logs" else f"{family}:{kind}:{size}:{seed}")
    if kind in ("lookup", "absent"):
        question, answer, context, wrong = lookup(rng, size, present=kind == "lookup")
    else:
        question, answer, context, wrong = makers[kind](rng, size)
    return Task(kind, size, seed, question, answer, context, wrong, family)


def _has(value: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE) is not None


def score(task: Task, answer: str | None, *, strict: bool = False) -> bool:
    """True when ``answer`` is right for ``task``.

    Lenient (the default): a port or warehouse must be named, as a whole token, with no distractor's
    value beside it; a count or a sum must be the only number in the answer (``172``, ``There are
    172.``, ``1,172``); NOT PRESENT accepts the phrases of :data:`ABSENT_WORDS` when no distractor
    port is named. ``strict`` (issue 54): the answer alone, exactly: ``172``, ``W-17``, ``NOT PRESENT``
    (case ignored, spaces around trimmed); ``city=Tampere``, ``172 lines`` or ``1,172`` are wrong.
    """
    text = (answer or "").strip()
    if not text:
        return False
    if strict:
        if task.kind in NUMERIC_KINDS and task.answer != NOT_PRESENT:
            return re.fullmatch(r"-?\d+", text) is not None and int(text) == int(task.answer)
        return text.casefold() == task.answer.casefold()
    if any(_has(value, text) for value in task.wrong):
        return False
    if task.answer == NOT_PRESENT:
        return any(word in text.lower() for word in ABSENT_WORDS)
    if task.kind in NUMERIC_KINDS:
        numbers = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)}
        return numbers == {int(task.answer)}
    return _has(task.answer, text)
