import pytest
from notify import Sender, Settings, TransientError, from_env


class FlakyTransport:
    def __init__(self, failures):
        self.failures = failures
        self.calls = []

    def __call__(self, channel, to, message, timeout):
        self.calls.append((channel, to, message))
        if len(self.calls) <= self.failures:
            raise TransientError("try again")


def test_first_try_succeeds():
    transport = FlakyTransport(0)
    assert Sender(transport, sleep=lambda s: None).send("a@example.com", "hi") == 1


def test_retries_with_backoff():
    waited = []
    sender = Sender(FlakyTransport(2), sleep=waited.append)
    assert sender.send("a@example.com", "hi") == 3
    assert waited == sender.delays()[:2]


def test_gives_up_after_max_attempts():
    transport = FlakyTransport(10)
    sender = Sender(transport, Settings(max_attempts=2), sleep=lambda s: None)
    with pytest.raises(TransientError):
        sender.send("a@example.com", "hi")
    assert len(transport.calls) == 2


def test_env_overrides():
    settings = from_env({"NOTIFY_CHANNEL": "sms", "NOTIFY_MAX_ATTEMPTS": "6"})
    assert settings.channel == "sms"
    assert settings.max_attempts == 6
