"""The answer alone (issue 54, item 4): the value, not the field or the words around it."""

import pytest

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig, RLMEngine
from codur.rlm.alone import answer_alone

CITY = "In which city was that account opened? Answer with the city."
COUNT = "How many parcels have the status lost? Answer with the number."
TEAM = "Which team was ticket T-5631 assigned to? Answer with the team name."
ABSENT = "Who holds ACC-1? If no record opens exactly ACC-1, answer NOT PRESENT."


@pytest.mark.parametrize("question, answer, alone", [
    (CITY, "city=Tampere", "Tampere"), (CITY, "{'city': 'Tampere'}", "Tampere"),
    (CITY, '"city": "Tampere"', "Tampere"), (CITY, "['Tampere']", "Tampere"), (CITY, "Tampere.", "Tampere"),
    (COUNT, "48 lines", "48"), (COUNT, "There are 1,172.", "1172"), (COUNT, "940359.0", "940359"),
    (COUNT, "count: 48", "48"), (ABSENT, "not found", "NOT PRESENT"),
    (COUNT, "12 of 40", "12 of 40"), (CITY, "W-17", "W-17"), (CITY, "12:30:00", "12:30:00"),
    (CITY, "Error: timeout while reading", "Error: timeout while reading"), (CITY, "It is Tampere.", "It is Tampere."),
    (TEAM, "team lumen", "lumen"), (TEAM, "Team: lumen", "lumen"), (CITY, "New York", "New York"),
    (CITY, "city Tampere", "Tampere"), (TEAM, "lumen team", "lumen team"),
])
def test_answer_alone(question, answer, alone):
    assert answer_alone(question, answer) == alone


def test_the_run_hands_in_the_value_alone_and_says_so():
    model = ScriptedChatModel(replies=["FINAL(city=Tampere)"])
    result = RLMEngine(model, RLMConfig(check_evidence=False)).run(CITY, "account opened city=Tampere\n" * 3)
    assert result.answer == "Tampere"
    assert "the answer alone: 'city=Tampere' handed in as 'Tampere'" in result.trace.warnings
    kept = RLMEngine(ScriptedChatModel(replies=["FINAL(city=Tampere)"]),
                     RLMConfig(check_evidence=False, answer_alone=False)).run(CITY, "city=Tampere\n")
    assert kept.answer == "city=Tampere"
