"""The machine's own secret files, which the code codur runs reads as empty under bubblewrap.

The tools' sandbox shows the machine's filesystem read-only (:func:`codur.sandbox.bwrap.bwrap_argv`).
A run as root (a container, a CI job) could read the password hashes, the SSH host keys and the TLS
private keys from the repo's own code (a test, a conftest), and print them into the trace and the
model's prompt, where no secret detector knows a password hash's shape. These are the files of that
kind a Debian-like system keeps (shadow(5), gshadow(5), sshd(8)'s host keys, ssl-cert's private
keys, sudoers(5), a Kerberos keytab); each that exists is bound over by an empty file.
"""

from __future__ import annotations

import glob
from pathlib import Path

#: the files (glob patterns) that hold the machine's credentials
PATTERNS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d/*",
            "/etc/security/opasswd", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private/*", "/etc/krb5.keytab")


def system_secrets() -> list[Path]:
    """The existing regular files matching :data:`PATTERNS` (absolute paths); a folder is left out."""
    return [Path(p) for pattern in PATTERNS for p in sorted(glob.glob(pattern)) if Path(p).is_file()]
