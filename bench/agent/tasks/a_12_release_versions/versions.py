"""Decide whether the desktop updater should offer a newer release.

Release tags look like "1.4.2" or "v2.0", optionally with a pre-release
suffix such as "2.0.0-rc1". Missing components count as zero ("1.2" is
the same release as "1.2.0") and a pre-release comes before the final
release with the same number.
"""


def normalize(tag):
    """Strip whitespace and a leading 'v' from a release tag."""
    tag = tag.strip()
    if tag[:1] in ("v", "V"):
        tag = tag[1:]
    return tag


def version_key(tag):
    """Return a key such that comparing keys compares the releases."""
    return normalize(tag).split(".")


def is_newer(candidate, current):
    """True if release ``candidate`` is newer than ``current``."""
    return version_key(candidate) > version_key(current)


def latest(tags):
    """The newest release among ``tags`` (None for an empty list)."""
    if not tags:
        return None
    return max(tags, key=version_key)
