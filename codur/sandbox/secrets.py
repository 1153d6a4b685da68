"""Secrets in what code printed: found by detect-secrets' detectors and redacted before the
output reaches a model or a trace.

The detectors are detect-secrets' (Yelp, https://github.com/Yelp/detect-secrets) pattern
detectors: AWS, GitHub, GitLab, OpenAI, Slack, Stripe, PyPI, npm keys and tokens, JSON
web tokens, credentials in URLs, private keys, and the rest of its ``RegexBasedDetector``
plugins. Left out: its entropy detectors and its keyword detector (they flag hashes, ids
and ``password = "x"`` in the code under repair, which the model must read as it is) and
its public IP detector (an address is no secret). A private key is redacted whole, from
its ``-----BEGIN`` line to its ``-----END`` line (RFC 7468 framing), not only its header.

Three more, for what the detectors miss:

- a credential line of a known provider without quotes, as credentials files and ``.env``
  files write it (``aws_secret_access_key = wJalr...``, ``GITHUB_TOKEN=ghp...``): the value
  is redacted when it looks like a token (16 or more token characters, nothing else);
- a ``netrc`` line's password (``machine h login u password s``);
- a base64 or hex run that decodes to text one of the above finds (a secret printed encoded).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: detect-secrets plugins not used (see the module doc).
LEFT_OUT = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector", "IPPublicDetector"})
_PEM_KEY = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S)


#: Variable and key names of known providers' credentials (lower case; ``KEY = value`` lines).
CREDENTIAL_NAMES = ("aws_secret_access_key", "aws_session_token", "aws_access_key_id", "github_token", "gh_token",
                    "gitlab_token", "openai_api_key", "anthropic_api_key", "hf_token", "huggingface_token",
                    "huggingfacehub_api_token", "slack_token", "slack_bot_token", "stripe_secret_key",
                    "stripe_api_key", "npm_token", "pypi_token", "twine_password", "google_api_key",
                    "azure_client_secret", "azure_openai_api_key", "groq_api_key", "mistral_api_key",
                    "cohere_api_key", "codur_api_key", "database_url", "codur_database_url")
_CREDENTIAL_LINE = re.compile(
    r"(?i)(?<![A-Za-z0-9_])((?:export\s+)?(?:" + "|".join(CREDENTIAL_NAMES)
    + r")\s*[=:]\s*[\"']?)([A-Za-z0-9/+=_\-.~:@%]{16,})(?=[\"']?\s*(?:#.*)?$)", re.M)
_NETRC = re.compile(r"(?i)(\b(?:machine|login)\s+\S+.*?\bpassword\s+)(\S+)")
_ENCODED = re.compile(r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{24,}={0,2}|[A-Za-z0-9_-]{24,}={0,2})(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){16,}(?![0-9A-Fa-f])")


@dataclass(frozen=True)
class Redaction:
    """Text with its secrets replaced by ``[REDACTED <type>]``; ``kinds``: the detector's
    secret type of each one replaced (e.g. ``"AWS Access Key"``), in order."""

    text: str
    kinds: tuple[str, ...] = ()


@functools.cache
def _patterns() -> tuple[tuple[str, re.Pattern], ...]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    return tuple((kind, pattern) for kind, cls in get_mapping_from_secret_type_to_class().items()
                 if issubclass(cls, RegexBasedDetector) and cls.__name__ not in LEFT_OUT
                 for pattern in cls.denylist)


def redact(text: str) -> Redaction:
    """``text`` with every secret detect-secrets' pattern detectors find replaced, line by
    line (their patterns are written for one line), private key blocks whole."""
    kinds: list[str] = []

    def key(match: re.Match) -> str:
        kinds.append("Private Key")
        return f"[REDACTED {match.group(1)}]"

    text = _PEM_KEY.sub(key, text)
    if not text:
        return Redaction(text, tuple(kinds))
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        lines[i] = _line(line, kinds)
        lines[i] = _ENCODED.sub(lambda m: _decoded(m, "base64", kinds), lines[i])
        lines[i] = _HEX.sub(lambda m: _decoded(m, "hex", kinds), lines[i])
    return Redaction("".join(lines), tuple(kinds))


def _line(line: str, kinds: list[str]) -> str:
    """One line with the detectors' findings, credential lines and netrc passwords redacted."""
    for kind, pattern in _patterns():
        if pattern.search(line):
            line, n = pattern.subn(f"[REDACTED {kind}]", line)
            kinds += [kind] * n
    for kind, pattern in (("Credential", _CREDENTIAL_LINE), ("netrc Password", _NETRC)):
        line, n = pattern.subn(lambda m, kind=kind: f"{m.group(1)}[REDACTED {kind}]", line)
        kinds += [kind] * n
    return line


def _decoded(match: re.Match, encoding: str, kinds: list[str]) -> str:
    """The run ``match`` redacted when it decodes (base64, URL-safe too, or hex) to text that holds
    a secret; else unchanged."""
    import base64
    import binascii

    run = match.group(0)
    try:
        if encoding == "hex":
            raw = bytes.fromhex(run)
        else:
            padded = run + "=" * (-len(run) % 4)
            raw = base64.urlsafe_b64decode(padded) if "-" in run or "_" in run else base64.b64decode(padded)
        text = raw.decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return run
    found: list[str] = []
    if _line(text, found) == text and not _PEM_KEY.search(text):
        return run
    kinds += found or ["Private Key"]
    return f"[REDACTED {(found or ['Private Key'])[0]} ({encoding})]"
