"""Settings for the notification sender.

Every setting can be overridden with an environment variable named
NOTIFY_<SETTING>, e.g. NOTIFY_MAX_ATTEMPTS=6.
"""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    channel: str = "email"
    max_attempts: int = 4        # first try included
    retry_delay: float = 2.5     # seconds to wait before the first retry
    backoff: float = 2.0         # every further retry waits this much longer
    timeout: float = 10.0        # seconds per transport call


def from_env(env=None) -> Settings:
    """Settings with defaults overridden by NOTIFY_* variables."""
    env = os.environ if env is None else env
    defaults = Settings()
    return Settings(
        channel=env.get("NOTIFY_CHANNEL", defaults.channel),
        max_attempts=int(env.get("NOTIFY_MAX_ATTEMPTS", defaults.max_attempts)),
        retry_delay=float(env.get("NOTIFY_RETRY_DELAY", defaults.retry_delay)),
        backoff=float(env.get("NOTIFY_BACKOFF", defaults.backoff)),
        timeout=float(env.get("NOTIFY_TIMEOUT", defaults.timeout)),
    )
