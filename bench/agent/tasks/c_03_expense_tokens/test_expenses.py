from expenses import amounts, largest, total


def test_amounts_in_the_middle():
    assert amounts("lunch 12.50 taxi") == [12.5]


def test_every_amount_is_read():
    assert amounts("lunch 12.50 taxi 8 coffee 3.20") == [12.5, 8.0, 3.2]


def test_total():
    assert total("lunch 12.50 taxi 8 coffee 3.20") == 23.7


def test_largest_at_the_end():
    assert largest("coffee 3 dinner 41") == 41.0


def test_no_amounts():
    assert amounts("nothing spent") == []
    assert largest("nothing spent") == 0.0
