"""Send customer notifications (email/SMS) with retries."""

from .config import Settings, from_env
from .sender import Sender, TransientError

__all__ = ["Settings", "from_env", "Sender", "TransientError"]
