from stock import Part, low_stock, reorder_lines, total_units

PARTS = [
    Part("BR-01", "Brake pads", "Brakes", 2),
    Part("BR-02", "Brake cable", "brakes", 12),
    Part("TY-26", "Tube 26in", "Tyres", 4, reorder_qty=20),
    Part("TY-28", "Tube 28in", "Tyres", 9),
    Part("CH-11", "Chain 11sp", "Drivetrain", 1, reorder_qty=5),
]


def test_low_stock_default_threshold():
    assert low_stock(PARTS) == ["BR-01", "CH-11", "TY-26"]


def test_low_stock_custom_threshold():
    assert low_stock(PARTS, threshold=2) == ["CH-11"]


def test_reorder_lines():
    assert reorder_lines(PARTS) == [("BR-01", 10), ("CH-11", 5), ("TY-26", 20)]


def test_total_units():
    assert total_units(PARTS) == 28


def test_low_stock_by_category():
    assert low_stock(PARTS, category="Tyres") == ["TY-26"]
    assert low_stock(PARTS, threshold=20, category="BRAKES") == ["BR-01", "BR-02"]


def test_low_stock_unknown_category():
    assert low_stock(PARTS, category="Lights") == []
