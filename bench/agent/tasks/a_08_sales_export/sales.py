"""Summaries of the monthly sales export.

The export is a CSV file with the columns
``date,region,product,units,unit_price``.
"""
import csv
import io


def read_rows(text):
    """Parse the CSV export into a list of dicts (one per sale)."""
    return list(csv.DictReader(io.StringIO(text.strip())))


def revenue_by_region(rows):
    """Total revenue per region, rounded to cents."""
    totals = {}
    for row in rows:
        region = row["region"]
        amount = int(row["units"]) * float(row["unit_price"])
        totals[region] = round(totals.get(region, 0.0) + amount, 2)
    return totals


def units_by_product(rows):
    """Total number of units sold per product."""
    totals = {}
    for row in rows:
        product = row["region"]
        totals[product] = totals.get(product, 0) + int(row["units"])
    return totals


def best_seller(rows):
    """The product with the most units sold (alphabetically first on ties)."""
    totals = units_by_product(rows)
    if not totals:
        return None
    return min(totals, key=lambda product: (-totals[product], product))
