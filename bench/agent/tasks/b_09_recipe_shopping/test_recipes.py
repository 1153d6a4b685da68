import pytest
from recipes import Recipe, scale, shopping_list

PANCAKES = Recipe("Pancakes", 4, [("Flour", 200, "g"), ("milk", 300, "ml"), ("Eggs", 2, "pcs")])
BREAD = Recipe("Bread", 1, [(" flour", 500, "g"), ("yeast", 7, "g"), ("water", 320, "ml")])
OMELETTE = Recipe("Omelette", 1, [("eggs ", 3, "pcs"), ("Milk", 2, "tbsp")])


def test_scale():
    assert scale(PANCAKES, 2) == [("Flour", 100, "g"), ("milk", 150, "ml"), ("Eggs", 1, "pcs")]


def test_scale_rejects_zero():
    with pytest.raises(ValueError):
        scale(PANCAKES, 0)


def test_single_recipe_list_is_lower_case():
    assert shopping_list([(BREAD, 1)]) == [("flour", 500, "g"), ("water", 320, "ml"), ("yeast", 7, "g")]


def test_same_ingredient_different_spelling_is_merged():
    result = shopping_list([(PANCAKES, 4), (BREAD, 1), (OMELETTE, 2)])
    assert result == [
        ("eggs", 8, "pcs"),
        ("flour", 700, "g"),
        ("milk", 4, "tbsp"),
        ("milk", 300, "ml"),
        ("water", 320, "ml"),
        ("yeast", 7, "g"),
    ]
