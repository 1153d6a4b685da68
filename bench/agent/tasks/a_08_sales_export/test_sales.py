from sales import best_seller, read_rows, revenue_by_region, units_by_product

EXPORT = """
date,region,product,units,unit_price
2024-03-01,north,kettle,2,24.50
2024-03-01,south,toaster,1,39.99
2024-03-02,north,toaster,3,39.99
2024-03-03,south,kettle,1,24.50
2024-03-04,north,kettle,4,24.50
"""


def test_read_rows():
    rows = read_rows(EXPORT)
    assert len(rows) == 5
    assert rows[0]["product"] == "kettle"


def test_revenue_by_region():
    assert revenue_by_region(read_rows(EXPORT)) == {"north": 266.97, "south": 64.49}


def test_units_by_product():
    assert units_by_product(read_rows(EXPORT)) == {"kettle": 7, "toaster": 4}


def test_best_seller():
    assert best_seller(read_rows(EXPORT)) == "kettle"
    assert best_seller([]) is None
