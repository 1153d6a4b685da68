from charging import Car, charging_list, fleet_range_km, stranded


def test_low_car_is_plugged_in():
    assert charging_list([Car("AB-12", 55, 0.2)]) == [("AB-12", 4.0)]


def test_charged_car_is_left_alone():
    assert charging_list([Car("CD-34", 55, 0.8)]) == []


def test_cars_out_of_service_are_skipped():
    assert charging_list([Car("EF-56", 40, 0.1, in_service=False)]) == []


def test_flat_car_comes_first():
    cars = [Car("LOW", 44, 0.25), Car("FLAT", 44, 0.0)]
    assert charging_list(cars) == [("FLAT", 4.0), ("LOW", 3.0)]


def test_stranded_and_range():
    cars = [Car("FLAT", 44, 0.0), Car("A", 50, 0.4)]
    assert stranded(cars) == ["FLAT"]
    assert fleet_range_km(cars) == 130
