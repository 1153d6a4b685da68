"""A music player's playlist: track lengths as 'm:ss', total time, and what plays when."""


def parse_duration(text):
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def format_duration(seconds):
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Playlist:
    def __init__(self, tracks):
        """``tracks``: [(title, 'm:ss')] in play order."""
        self.tracks = [(title, parse_duration(length)) for title, length in tracks]

    def total(self):
        return sum(length for _, length in self.tracks)

    def playing_at(self, position):
        """(index, title, seconds into that track) ``position`` seconds after the start."""
        if position < 0:
            raise ValueError("position must be >= 0")
        start = 0
        for index, (title, length) in enumerate(self.tracks):
            if position < start + length:
                return index, title, position - length
            start += length
        raise ValueError("past the end of the playlist")

    def time_left(self, position):
        return format_duration(max(self.total() - position, 0))
