"""Layered configuration: defaults < config file < environment, merged key by key."""

import copy


def deep_merge(base, override):
    """A new dict with ``override`` on top of ``base``; nested dicts are merged, not replaced."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            value = deep_merge(merged[key], value)
    return merged


def from_env(environ, prefix="APP_"):
    """{'APP_DB__HOST': 'x'} -> {'db': {'host': 'x'}}; '__' separates the levels."""
    result = {}
    for name, raw in environ.items():
        if not name.startswith(prefix):
            continue
        path = name[len(prefix):].lower().split("__")
        node = result
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = raw
    return result


def load(defaults, file_config, environ):
    return deep_merge(deep_merge(defaults, file_config), from_env(environ))


def get(config, dotted, default=None):
    """``get(cfg, "db.host")``: the value at a dotted path, or ``default``."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node
