def format_duration(seconds):
    """H:MM:SS for a number of seconds."""
    hours = seconds // 3600
    minutes = (seconds % 3600) // 60
    secs = seconds // 60
    return f"{hours}:{minutes:02d}:{secs:02d}"


def parse_duration(text):
    h, m, s = (int(part) for part in text.split(":"))
    return h * 3600 + m * 60 + s
