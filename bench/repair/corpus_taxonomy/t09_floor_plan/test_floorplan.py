from floorplan import Rect, bounds, free_area, overlap_area


def test_area():
    assert Rect(0, 0, 4, 3).area == 12


def test_overlap_of_offset_rectangles():
    assert overlap_area(Rect(0, 0, 4, 4), Rect(2, 1, 6, 2)) == 2


def test_separate_rectangles_do_not_overlap():
    assert overlap_area(Rect(0, 0, 1, 1), Rect(5, 5, 6, 6)) == 0


def test_touching_edges_do_not_overlap():
    assert overlap_area(Rect(0, 0, 2, 2), Rect(2, 0, 4, 2)) == 0


def test_free_area_ignores_furniture_outside_the_room():
    room = Rect(0, 0, 10, 5)
    assert free_area(room, [Rect(0, 0, 2, 1), Rect(8, 3, 12, 6)]) == 44


def test_bounds_and_contains():
    box = bounds([Rect(1, 1, 2, 2), Rect(-1, 0, 0, 3)])
    assert box == Rect(-1, 0, 2, 3)
    assert box.contains(Rect(0, 1, 1, 2))
