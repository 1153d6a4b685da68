"""Issue 21, item 2: what code prints is redacted with detect-secrets' pattern detectors;
what the model needs to read (hashes, ids, a password assignment in the code) is not."""

from __future__ import annotations

from codur.sandbox.secrets import redact


def test_tokens_keys_and_url_credentials_are_redacted_with_their_kind() -> None:
    text = ("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
            "db at https://admin:pa55word@db.example.com/app\n"
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7secret\n-----END RSA PRIVATE KEY-----\n"
            "done\n")
    out = redact(text)
    assert "ghp_abcdef" not in out.text and "pa55word" not in out.text and "MIIEow" not in out.text
    assert "[REDACTED RSA PRIVATE KEY]\ndone\n" in out.text
    assert set(out.kinds) == {"GitHub Token", "Basic Auth Credentials", "Private Key"}


def test_hashes_ids_and_code_are_left_alone() -> None:
    text = ("commit 9fceb02d0ae598e95dc970b74767f19372d61af8\n"
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "tests/test_auth.py:12: assert check(password='hunter2') is True\n"
            "uuid 123e4567-e89b-12d3-a456-426614174000 at 93.184.216.34\n")
    out = redact(text)
    assert out.text == text and out.kinds == ()
