from grades import average, letter, report


def test_average():
    assert average([80, 90, 100]) == 90


def test_letter():
    assert [letter(95), letter(85), letter(55)] == ["A", "B", "F"]


def test_report():
    assert report({"ann": [90, 100]}) == {"ann": (95, "A")}


def test_report_without_scores():
    assert report({"bob": []}) == {"bob": (0, "F")}
