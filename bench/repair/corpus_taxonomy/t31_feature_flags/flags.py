"""Feature flags for a web app: defaults, per-environment overrides, percentage roll-outs."""

import hashlib


def _bucket(name, user_id):
    """A stable bucket 0..99 of a user for a flag."""
    digest = hashlib.sha256(f"{name}:{user_id}".encode()).hexdigest()
    return int(digest[:8], 16) % 100


class FeatureFlags:
    def __init__(self, defaults, overrides=None):
        self._flags = dict(defaults)
        self._flags.update(overrides or {})
        self._rollouts = {}

    def is_enabled(self, name, user_id=None):
        if name in self._rollouts and user_id is not None:
            return _bucket(name, user_id) < self._rollouts[name]
        return self._flags.get(name, True)

    def roll_out(self, name, percent):
        if not 0 <= percent <= 100:
            raise ValueError("percent must be within 0..100")
        self._rollouts[name] = percent

    def enabled(self):
        return sorted(name for name, on in self._flags.items() if on)
