"""Secrets in what code printed: found by detect-secrets' detectors and redacted before the
output reaches a model or a trace.

The detectors are detect-secrets' (Yelp, https://github.com/Yelp/detect-secrets) pattern
detectors: AWS, GitHub, GitLab, OpenAI, Slack, Stripe, PyPI, npm keys and tokens, JSON
web tokens, credentials in URLs, private keys, and the rest of its ``RegexBasedDetector``
plugins. Left out: its entropy detectors and its keyword detector (they flag hashes, ids
and ``password = "x"`` in the code under repair, which the model must read as it is) and
its public IP detector (an address is no secret). A private key is redacted whole, from
its ``-----BEGIN`` line to its ``-----END`` line (RFC 7468 framing), not only its header.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: detect-secrets plugins not used (see the module doc).
LEFT_OUT = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector", "IPPublicDetector"})
_PEM_KEY = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S)


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
    patterns = _patterns()
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        for kind, pattern in patterns:
            if pattern.search(line):
                line, n = pattern.subn(f"[REDACTED {kind}]", line)
                kinds += [kind] * n
        lines[i] = line
    return Redaction("".join(lines), tuple(kinds))
