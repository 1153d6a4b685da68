"""The fourth task family for the RLM accuracy bench (issue 54, item 5): a courier network's export
as CSV, two tables one after the other, each with its own header line. Frozen before issue 54's
engine changes (``records``) and never run until their measurement of record: the second held-out
family beside the ledger (``ledger_tasks.py``).

The text is a ``couriers`` table (``courier_id,name,home_depot,vehicle,joined``), a blank line, then
a ``parcels`` table (``parcel_id,courier_id,scanned_at,status,weight_g,zone,note``); a note is a
quoted field that may hold commas and the words of other rows' statuses and zones. Six kinds:

* ``lookup``: the depot a courier is based at, among look-alike couriers (``CR-58213`` beside
  ``CR-582137``, ``CR-5821``, ``XCR-58213``, ``CR-58213-B``), each based elsewhere; the courier's id
  is also on parcel rows, which name no depot;
* ``count``: how many parcels of one zone have one status, among notes naming that status and zone
  on rows that have neither;
* ``sum``: the total weight (grams) of the parcels with one status;
* ``aggregate`` (group-by argmax): the zone with the most lost parcels, never the busiest zone overall;
* ``join``: a parcel names its courier; the depot is on that courier's row in the other table;
* ``absent``: the ``lookup`` question for a courier whose look-alikes are there but which is not.

``make_task(kind, size, seed)`` is deterministic for its arguments; ``score`` is log_tasks's.
"""

from __future__ import annotations

import csv
import io
import random

from log_tasks import NOT_PRESENT, Task, family_task, score

__all__ = ["KINDS", "NOT_PRESENT", "Task", "make_task", "score"]

KINDS = ("lookup", "count", "sum", "aggregate", "join", "absent")
FAMILY = "parcels"

NAMES = ("Mara Lind", "Jonas Vik", "Ada Brenner", "Ilse Marr", "Tomas Rey", "Noor Haddad", "Lea Sorensen",
         "Piet Maas", "Rui Costa", "Eva Kral", "Otto Berg", "Mina Sato", "Karl Dahl", "Sara Pinto")
DEPOTS = ("Oulu", "Kaunas", "Riga", "Gdansk", "Aalborg", "Linz", "Ostrava", "Trieste", "Nantes", "Tromso",
          "Uppsala", "Zadar", "Bremen", "Salzburg", "Vigo", "Lille")
VEHICLES = ("van", "van", "bike", "cargo-bike", "truck")
ZONES = ("north", "south", "east", "west", "central", "harbor")
STATUSES = ("delivered", "delivered", "delivered", "delivered", "in_transit", "held", "returned", "lost")
NOTES = ("", "", "", "", "left at door, signed", "fragile", "second attempt", "neighbour took it, flat 4",
         "customer returned our call", "label lost and reprinted", "rerouted via {z} zone, no delay",
         "not returned, delivered late", "sender says lost, found on shelf")
HEADERS = (("courier_id", "name", "home_depot", "vehicle", "joined"),
           ("parcel_id", "courier_id", "scanned_at", "status", "weight_g", "zone", "note"))


class _Export:
    """Filler rows: couriers CR-1000..CR-4999 and parcels PX-100000..PX-499999; the question's couriers
    and parcels are numbered above those ranges."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng, self.size = rng, size
        self.seconds = rng.randint(0, 86_400 * 20)
        self.zone_weights = [6, 3, 3, 2, 2, 1]  # north is the busiest zone overall
        self.lost_rate = {z: 0.02 for z in ZONES}

    def stamp(self) -> str:
        self.seconds += self.rng.randint(0, 7)
        day, rest = divmod(self.seconds, 86_400)
        return f"2026-05-{day % 28 + 1:02d}T{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"

    def courier_id(self) -> str:
        return f"CR-{self.rng.randint(1000, 4999)}"

    def courier(self, courier: str | None = None, depot: str | None = None) -> list[str]:
        rng = self.rng
        return [courier or self.courier_id(), rng.choice(NAMES), depot or rng.choice(DEPOTS), rng.choice(VEHICLES),
                f"20{rng.randint(18, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"]

    def parcel(self, courier: str | None = None, parcel: str | None = None, status: str | None = None,
               zone: str | None = None) -> list[str]:
        rng = self.rng
        zone = zone or rng.choices(ZONES, weights=self.zone_weights)[0]
        if status is None:
            status = "lost" if rng.random() < self.lost_rate[zone] else \
                rng.choice([s for s in STATUSES if s != "lost"])
        note = rng.choice(NOTES).format(z=rng.choice(ZONES))
        return [parcel or f"PX-{rng.randint(100000, 499999)}", courier or self.courier_id(), self.stamp(), status,
                str(rng.randint(80, 4000)), zone, note]

    def build(self, couriers: list[tuple[float, list[str]]], parcels: list[tuple[float, list[str]]]) -> str:
        """About ``size`` characters: the couriers table (about an eighth), a blank line, the parcels
        table; each (fraction, row) goes at that fraction of its table."""
        tables = []
        for header, special, make, share in ((HEADERS[0], couriers, self.courier, 0.12),
                                             (HEADERS[1], parcels, self.parcel, 0.88)):
            rows, total = [], 0
            while total < self.size * share:
                row = make()
                rows.append(row)
                total += sum(len(cell) + 1 for cell in row)
            for fraction, row in sorted(special, key=lambda item: item[0], reverse=True):
                rows.insert(min(int(fraction * len(rows)), len(rows)), row)
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
            tables.append(out.getvalue())
        return "\n".join(tables)


def parcel_rows(text: str) -> list[dict[str, str]]:
    """The parcels table of an export, one dict per row (how the answers are computed)."""
    return list(csv.DictReader(io.StringIO(text.split("\n\n", 1)[1])))


def _alike_couriers(rng: random.Random, number: int) -> list[str]:
    """Courier ids a careless search confuses with ``CR-number``."""
    names = {f"CR-{number}{d}" for d in rng.sample(range(10), 3)}
    names |= {f"CR-{number // 10}", f"XCR-{number}", f"CR-{number}-B", f"cr-{number + 1}"}
    return sorted(names)


def _lookup(rng: random.Random, size: int, present: bool) -> tuple[str, str, str, tuple[str, ...]]:
    number = rng.randint(50000, 99999)
    target = f"CR-{number}"
    alikes = _alike_couriers(rng, number)
    depots = rng.sample(DEPOTS, len(alikes) + 1)
    export = _Export(rng, size)
    couriers = [(rng.random(), export.courier(name, depot)) for name, depot in zip(alikes, depots[1:], strict=True)]
    parcels = [(rng.random(), export.parcel(name)) for name in alikes for _ in range(2)]
    if present:
        couriers.append((rng.uniform(0.1, 0.9), export.courier(target, depots[0])))
        parcels += [(rng.random(), export.parcel(target)) for _ in range(3)]
    question = (f"At which depot is the courier {target} based? Answer with the depot name. "
                f"If the couriers table has no row for exactly {target}, answer {NOT_PRESENT}.")
    return question, depots[0] if present else NOT_PRESENT, export.build(couriers, parcels), tuple(depots[1:])


def _count(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    zone = rng.choice(ZONES[:4])
    text = export.build([], [])
    answer = sum(1 for row in parcel_rows(text) if row["zone"] == zone and row["status"] == "returned")
    question = f"How many parcels in the zone {zone} have the status returned? Answer with the number."
    return question, str(answer), text, ()


def _sum(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    status = rng.choice(("held", "lost"))
    text = export.build([], [])
    answer = sum(int(row["weight_g"]) for row in parcel_rows(text) if row["status"] == status)
    question = (f"What is the total weight in grams of all parcels with the status {status}? "
                "Answer with the number only.")
    return question, str(answer), text, ()


def _aggregate(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    winner = rng.choice(ZONES[1:])  # never north, the busiest zone overall
    export.lost_rate = {z: rng.uniform(0.01, 0.03) for z in ZONES}
    export.lost_rate[winner] = rng.uniform(0.3, 0.4)
    text = export.build([], [])
    lost: dict[str, int] = {}
    for row in parcel_rows(text):
        if row["status"] == "lost":
            lost[row["zone"]] = lost.get(row["zone"], 0) + 1
    answer = max(lost, key=lost.__getitem__)
    question = "Which zone has the most parcels with the status lost? Answer with the zone name only."
    return question, answer, text, tuple(z for z in ZONES if z != answer)


def _join(rng: random.Random, size: int) -> tuple[str, str, str, tuple[str, ...]]:
    export = _Export(rng, size)
    pairs = 10
    couriers = [f"CR-{n}" for n in rng.sample(range(50000, 99999), pairs)]
    parcels = [f"PX-{n}" for n in rng.sample(range(500000, 999999), pairs)]
    depots = rng.sample(DEPOTS, pairs)
    courier_rows = [(rng.random(), export.courier(c, d)) for c, d in zip(couriers, depots, strict=True)]
    parcel_rows_ = [(rng.random(), export.parcel(c, p)) for c, p in zip(couriers, parcels, strict=True)]
    question = (f"Parcel {parcels[0]} was carried by a courier. At which depot is that courier based? "
                "Answer with the depot name.")
    return question, depots[0], export.build(courier_rows, parcel_rows_), tuple(depots[1:])


def make_task(kind: str, size: int, seed: int) -> Task:
    """The parcels task of ``kind`` over about ``size`` characters of CSV (same arguments, same task).

    Raises:
        ValueError: an unknown kind, or a size under 5,000 characters.
    """
    return family_task(FAMILY, (_lookup, _count, _join), kind, size, seed, {"sum": _sum, "aggregate": _aggregate})
