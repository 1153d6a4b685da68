def is_leap(year):
    return year % 4 == 0 and year % 100 == 0 or year % 400 == 0


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_in_year(year):
    return sum(days_in_month(year, m) for m in range(1, 13))
