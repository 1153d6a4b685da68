"""The third task family for the RLM accuracy bench (issue 40, item 5): a payments ledger written as
JSON lines, committed before the engine's next changes and never tuned on (``log_tasks.py`` and
``ticket_tasks.py`` are the development families).

Each line is one JSON record: an account opened (``account``, ``holder``, ``city``, ``currency``) or a
payment (``payment``, ``account``, ``method``, ``status``, ``amount``, sometimes a free-text ``memo``).
Five kinds:

* ``lookup``: who holds an account, among look-alike accounts (``ACC-48213`` beside ``ACC-482137``,
  ``ACC-4821``, ``XACC-48213``, ``ACC-48213-J``) each opened for someone else; the account's own
  id is also on payment records that name no holder;
* ``count``: how many payments match two constraints (a method and a status) at once, among memos
  that mention both words on records that match neither;
* ``join``: a payment names its account; the city is on that account's opening record, far away
  (two hops: payment → account → city);
* ``absent``: the ``lookup`` question for an account whose look-alikes are there but which is not;
* ``aggregate`` (after OOLONG's aggregation over categories): the payment method with the most
  failed payments, which is not the most used method overall, with memos naming other methods.

``make_task(kind, size, seed)`` is deterministic for its arguments; ``score`` is log_tasks's (the
value as a whole token, no distractor's value beside it, a count the only number, NOT PRESENT in words).
"""

from __future__ import annotations

import json
import random

from log_tasks import NOT_PRESENT, Task, score

__all__ = ["KINDS", "NOT_PRESENT", "Task", "make_task", "score"]

KINDS = ("lookup", "count", "join", "absent", "aggregate")
FAMILY = "ledger"

HOLDERS = ("a.okafor", "b.lindqvist", "c.moreau", "d.tanaka", "e.silva", "f.novak", "g.haddad", "h.kowalski",
           "i.mensah", "j.oconnor", "k.rossi", "l.nguyen", "m.petrov", "n.castillo", "o.fischer", "p.ahmed")
CITIES = ("Porto", "Ghent", "Tartu", "Lyon", "Bergen", "Graz", "Poznan", "Cork", "Malmo", "Turin",
          "Utrecht", "Brno", "Aarhus", "Split", "Leipzig", "Bilbao")
CURRENCIES = ("EUR", "EUR", "SEK", "DKK", "CZK", "PLN")
METHODS = ("card", "transfer", "wallet", "direct-debit", "cheque")
STATUSES = ("settled", "settled", "settled", "pending", "failed", "reversed")
MEMOS = ("monthly rent", "invoice {n}", "refund of order {n}", "gym membership", "utility bill", "salary advance")
NOISY_MEMOS = ("retry of a failed {m} payment", "customer says the {m} payment failed last week",
               "{m} failed once, paid again", "not a failed {m} payment, see ticket {n}")


class _Ledger:
    """Filler records for accounts ACC-1000..ACC-4999 and payments PAY-100000..PAY-499999; the
    question's accounts and payments are numbered above those ranges."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng, self.size = rng, size
        self.seconds = rng.randint(0, 86_400 * 20)
        self.method_weights = [5, 3, 2, 2, 1]  # card is used most overall
        self.fail_rate = {m: 0.08 for m in METHODS}

    def stamp(self) -> str:
        self.seconds += self.rng.randint(0, 6)
        day, rest = divmod(self.seconds, 86_400)
        return f"2026-04-{day % 28 + 1:02d}T{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"

    def account(self) -> str:
        return f"ACC-{self.rng.randint(1000, 4999)}"

    def opened(self, account: str, holder: str | None = None, city: str | None = None) -> dict:
        rng = self.rng
        return {"ts": self.stamp(), "event": "account_opened", "account": account,
                "holder": holder or rng.choice(HOLDERS), "city": city or rng.choice(CITIES),
                "currency": rng.choice(CURRENCIES)}

    def payment(self, account: str | None = None, method: str | None = None, status: str | None = None,
                payment: str | None = None, noisy: bool = True) -> dict:
        rng = self.rng
        method = method or rng.choices(METHODS, weights=self.method_weights)[0]
        if status is None:
            status = "failed" if rng.random() < self.fail_rate[method] else \
                rng.choice([s for s in STATUSES if s != "failed"])
        record = {"ts": self.stamp(), "event": "payment", "payment": payment or f"PAY-{rng.randint(100000, 499999)}",
                  "account": account or self.account(), "method": method, "status": status,
                  "amount": f"{rng.randint(1, 4000)}.{rng.randint(0, 99):02d}"}
        roll = rng.random()
        if noisy and roll < 0.06 and status != "failed":  # a memo naming "failed" and a method: loose counts overcount
            record["memo"] = rng.choice(NOISY_MEMOS).format(m=rng.choice(METHODS), n=rng.randint(100, 999))
        elif roll < 0.3:
            record["memo"] = rng.choice(MEMOS).format(n=rng.randint(10000, 99999))
        return record

    def filler(self) -> dict:
        return self.opened(self.account()) if self.rng.random() < 0.15 else self.payment()

    def build(self, special: list[tuple[float, dict]], make_record=None) -> str:
        """About ``size`` characters of JSON lines; each (fraction, record) of ``special`` goes at that
        fraction, with the time stamp of the record before it."""
        make_record = make_record or self.filler
        records, total = [], sum(len(json.dumps(record)) + 1 for _, record in special)
        while total < self.size:
            record = make_record()
            records.append(record)
            total += len(json.dumps(record)) + 1
        for fraction, record in sorted(special, key=lambda item: item[0], reverse=True):
            at = min(int(fraction * len(records)), len(records))
            stamped = {"ts": records[max(at - 1, 0)]["ts"], **{k: v for k, v in record.items() if k != "ts"}}
            records.insert(at, stamped)
        return "".join(json.dumps(record) + "\n" for record in records)


def _alike_accounts(rng: random.Random, number: int) -> list[str]:
    """Account ids a careless search confuses with ``ACC-number``."""
    names = {f"ACC-{number}{d}" for d in rng.sample(range(10), 3)}
    names |= {f"ACC-{number // 10}", f"XACC-{number}", f"ACC-{number}-J", f"acc-{number + 1}"}
    return sorted(names)


def _lookup(rng: random.Random, size: int, present: bool) -> tuple[str, str, str, tuple[str, ...]]:
    number = rng.randint(50000, 99999)
    target = f"ACC-{number}"
    alikes = _alike_accounts(rng, number)
    holders = rng.sample(HOLDERS, len(alikes) + 1)
    ledger = _Ledger(rng, size)
    special = [(rng.random(), ledger.opened(name, holder)) for name, holder in zip(alikes, holders[1:], strict=True)]
    special += [(rng.random(), ledger.payment(name)) for name in alikes for _ in range(2)]
    if present:
        special.append((rng.uniform(0.1, 0.6), ledger.opened(target, holders[0])))
        special += [(rng.uniform(0.1, 0.99), ledger.payment(target)) for _ in range(3)]
    question = (f"Who holds the account {target}? Answer with the holder's name. "
                f"If no record opens exactly {target}, answer {NOT_PRESENT}.")
    return question, holders[0] if present else NOT_PRESENT, ledger.build(special), tuple(holders[1:])


def _count(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    ledger = _Ledger(rng, size)
    method = rng.choice(("card", "transfer", "wallet"))
    ledger.fail_rate = {m: rng.uniform(0.05, 0.12) for m in METHODS}
    text = ledger.build([])
    answer = sum(1 for line in text.splitlines()
                 if (r := json.loads(line)).get("method") == method and r.get("status") == "failed")
    question = (f"How many {method} payments have the status failed? Answer with the number.")
    return question, str(answer), text, ()


def _join(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    ledger = _Ledger(rng, size)
    pairs = 10
    accounts = [f"ACC-{n}" for n in rng.sample(range(50000, 99999), pairs)]
    payments = [f"PAY-{n}" for n in rng.sample(range(500000, 999999), pairs)]
    cities = rng.sample(CITIES, pairs)
    special = []
    for i, (account, payment, city) in enumerate(zip(accounts, payments, cities, strict=True)):
        opened = rng.uniform(0.75, 0.95) if i == 0 else rng.uniform(0.02, 0.95)
        paid = rng.uniform(0.02, 0.2) if i == 0 else rng.uniform(0.02, 0.98)
        special.append((opened, ledger.opened(account, city=city)))
        special.append((paid, ledger.payment(account, payment=payment, noisy=False)))
    question = (f"Payment {payments[0]} was made from an account. In which city was that account opened? "
                "Answer with the city.")
    return question, cities[0], ledger.build(special), tuple(cities[1:])


def _aggregate(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    ledger = _Ledger(rng, size)
    winner = rng.choice(("transfer", "wallet", "direct-debit"))  # never card, the most used method overall
    ledger.fail_rate = {m: rng.uniform(0.03, 0.06) for m in METHODS}
    ledger.fail_rate[winner] = rng.uniform(0.35, 0.45)
    text = ledger.build([])
    failed: dict[str, int] = {}
    for line in text.splitlines():
        record = json.loads(line)
        if record.get("status") == "failed":
            failed[record["method"]] = failed.get(record["method"], 0) + 1
    answer = max(failed, key=failed.__getitem__)
    question = ("Which payment method has the most payments with the status failed? "
                "Answer with the method name.")
    return question, answer, text, tuple(m for m in METHODS if m != answer)


def make_task(kind: str, size: int, seed: int) -> Task:
    """The ledger task of ``kind`` over about ``size`` characters of JSON lines (same arguments, same task).

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown task kind {kind!r}; known: {', '.join(KINDS)}")
    if size < 5_000:
        raise ValueError("a task log needs at least 5,000 characters")
    rng = random.Random(f"{FAMILY}:{kind}:{size}:{seed}")
    if kind in ("lookup", "absent"):
        question, answer, context, wrong = _lookup(rng, size, present=kind == "lookup")
    else:
        question, answer, context, wrong = {"count": _count, "join": _join, "aggregate": _aggregate}[kind](rng, size)
    return Task(kind, size, seed, question, answer, context, wrong, FAMILY)
