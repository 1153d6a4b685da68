from grades import average, letter, report


def test_report_with_and_without_scores():
    assert average([80, 90]) == 85
    assert report({"ann": [], "bob": [90, 100], "cy": [59]}) == {"ann": (0, "F"), "bob": (95, "A"),
                                                                "cy": (59, "F")}
    assert [letter(s) for s in (90, 89.9, 60, 59)] == ["A", "B", "D", "F"]
