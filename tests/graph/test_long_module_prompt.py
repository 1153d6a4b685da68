"""A module too long to show whole: the agent's first prompt shows the suspicious function's code."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

#: (name, factor, what): a unit-conversion module as a project grows one, a function per pair
FACTORS = [
    ("inches_to_cm", 2.54, "inches to centimetres"), ("cm_to_inches", 0.3937007874, "centimetres to inches"),
    ("feet_to_m", 0.3048, "feet to metres"), ("m_to_feet", 3.280839895, "metres to feet"),
    ("yards_to_m", 0.9144, "yards to metres"), ("m_to_yards", 1.0936132983, "metres to yards"),
    ("miles_to_km", 1.609344, "miles to kilometres"), ("km_to_miles", 0.6213711922, "kilometres to miles"),
    ("nmi_to_km", 1.852, "nautical miles to kilometres"), ("km_to_nmi", 0.5399568035, "kilometres to nautical miles"),
    ("ounces_to_g", 28.349523125, "ounces to grams"), ("g_to_ounces", 0.0352739619, "grams to ounces"),
    ("pounds_to_kg", 0.45359237, "pounds to kilograms"), ("kg_to_pounds", 2.2046226218, "kilograms to pounds"),
    ("stones_to_kg", 6.35029318, "stones to kilograms"), ("kg_to_stones", 0.1574730444, "kilograms to stones"),
    ("gallons_to_l", 3.785411784, "US gallons to litres"), ("l_to_gallons", 0.2641720524, "litres to US gallons"),
    ("pints_to_l", 0.473176473, "US pints to litres"), ("l_to_pints", 2.1133764189, "litres to US pints"),
    ("cups_to_ml", 236.5882365, "US cups to millilitres"), ("ml_to_cups", 0.0042267528, "millilitres to US cups"),
    ("tbsp_to_ml", 14.78676478, "tablespoons to millilitres"), ("ml_to_tbsp", 0.0676280454, "millilitres to tbsp"),
    ("tsp_to_ml", 4.928921594, "teaspoons to millilitres"), ("ml_to_tsp", 0.2028841362, "millilitres to tsp"),
    ("acres_to_ha", 0.4046856422, "acres to hectares"), ("ha_to_acres", 2.4710538147, "hectares to acres"),
    ("sqft_to_sqm", 0.09290304, "square feet to square metres"), ("sqm_to_sqft", 10.763910417, "sq m to sq ft"),
    ("mph_to_kmh", 1.609344, "miles per hour to km/h"), ("kmh_to_mph", 0.6213711922, "km/h to miles per hour"),
    ("knots_to_kmh", 1.852, "knots to km/h"), ("kmh_to_knots", 0.5399568035, "km/h to knots"),
]
BUG = "    return (fahrenheit - 32) * 9 / 5\n"
FIX = "    return (fahrenheit - 32) * 5 / 9\n"


def units_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "units"
    repo.mkdir()
    text = '"""Conversions between units, one function per pair."""\n\n\n'
    for name, factor, what in FACTORS:
        text += f'def {name}(value):\n    """Convert {what}."""\n    return value * {factor}\n\n\n'
    text += f'def fahrenheit_to_celsius(fahrenheit):\n    """Convert degrees Fahrenheit to Celsius."""\n{BUG}'
    (repo / "units.py").write_text(text)
    (repo / "test_units.py").write_text(
        "from units import fahrenheit_to_celsius, inches_to_cm\n\n\n"
        "def test_boiling_point():\n    assert fahrenheit_to_celsius(212) == 100\n\n\n"
        "def test_an_inch():\n    assert inches_to_cm(1) == 2.54\n")
    return repo


def test_the_suspicious_function_of_a_long_module_is_in_the_first_prompt(tmp_path: Path):
    repo = units_repo(tmp_path)
    assert len((repo / "units.py").read_text().splitlines()) > 160  # too long for observe to show whole
    fix = "```json\n" + json.dumps({"name": "replace_in_file", "arguments": {
        "path": "units.py", "old": BUG.strip(), "new": FIX.strip()}}) + "\n```"
    actor = ScriptedChatModel(replies=[fix, "Fixed."])
    result = run(RunRequest(task="make the failing tests pass", repo=repo),
                 models=StaticModelProvider({"actor": actor}), config=CodurConfig(fixers=["agent"], critic=False))
    assert result.status is RunStatus.SUCCESS, result.reason
    prompt = actor.calls[0][1].content
    last = len((repo / "units.py").read_text().splitlines())
    assert f"units.py lines {last - 2}–{last}, fahrenheit_to_celsius (now):" in prompt
    assert f"{last:4d}| {BUG.rstrip()}" in prompt  # numbered as in the file
    assert "def miles_to_km" not in prompt  # the rest of the module is not shown
