"""Reads ``KEY=value`` settings files: comments, quoted values and ``${NAME}`` references."""

import re

REFERENCE = re.compile(r"\$\{(\w+)\}")


def _unquote(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_settings(text):
    settings = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ValueError(f"line {number}: expected KEY=value")
        key, value = line.split("=")
        settings[key.strip()] = _unquote(value.strip())
    return settings


def expand(settings):
    """Replace ``${NAME}`` by the value of NAME; unknown names become ''."""
    def lookup(match):
        return settings.get(match.group(1), "")
    return {key: REFERENCE.sub(lookup, value) for key, value in settings.items()}


def load(text):
    return expand(parse_settings(text))
