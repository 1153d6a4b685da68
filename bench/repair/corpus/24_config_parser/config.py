def parse_config(text):
    """key = value lines; blank lines and # comments are ignored."""
    settings = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line and line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        settings[key.strip()] = value.strip()
    return settings


def get_int(settings, key, default=0):
    value = settings.get(key)
    return int(value) if value else default
