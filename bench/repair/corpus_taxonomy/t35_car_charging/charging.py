"""A car-sharing fleet: which cars the night shift must plug in, and for how long."""

from dataclasses import dataclass

CHARGER_KW = 11.0


@dataclass
class Car:
    plate: str
    battery_kwh: float
    charge: float  # state of charge, 0..1
    in_service: bool = True


def charging_list(cars, threshold=0.3):
    """(plate, hours to full) of the cars at or below ``threshold``, longest charge first."""
    jobs = []
    for car in cars:
        if not car.in_service:
            continue
        if car.charge <= threshold and car.charge > 0:
            hours = car.battery_kwh * (1 - car.charge) / CHARGER_KW
            jobs.append((car.plate, round(hours, 1)))
    return sorted(jobs, key=lambda job: -job[1])


def stranded(cars):
    return [car.plate for car in cars if car.charge == 0 and car.in_service]


def fleet_range_km(cars, km_per_kwh=6.5):
    return round(sum(c.battery_kwh * c.charge * km_per_kwh for c in cars if c.in_service))
