"""Scale recipes and build a combined shopping list for the week."""

from dataclasses import dataclass


@dataclass
class Recipe:
    name: str
    serves: int
    ingredients: list  # of (name, quantity, unit)


def scale(recipe: Recipe, servings: int) -> list:
    """Ingredients of `recipe` scaled from recipe.serves to `servings`."""
    if servings <= 0:
        raise ValueError("servings must be positive")
    factor = servings / recipe.serves
    return [(name, round(qty * factor, 2), unit) for name, qty, unit in recipe.ingredients]


def shopping_list(plan: list) -> list:
    """Combine the ingredients of several (recipe, servings) pairs.

    Ingredient names are matched ignoring case and surrounding spaces, so
    'Flour' and ' flour' end up on one line. Quantities are only added up
    when the units match. Returns sorted (name, quantity, unit) tuples with
    lower-case names.
    """
    totals = {}
    for recipe, servings in plan:
        for name, qty, unit in scale(recipe, servings):
            name = name.strip().lower()
            key = (name, unit)
            totals[key] = round(totals.get(key, 0) + qty, 2)
    return sorted((name, qty, unit) for (name, unit), qty in totals.items())
