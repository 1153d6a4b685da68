from datetime import date

import pytest
from membership import Membership


@pytest.fixture
def annual():
    """Ana joined on 1 March 2024 on a 12-month plan."""
    return Membership("Ana", date(2023, 3, 1), 12)


@pytest.fixture
def monthly():
    """Ben joined on 31 January 2024 on a 1-month plan."""
    return Membership("Ben", date(2024, 1, 31), 1)
