"""CSS colours: '#rrggbb' <-> (r, g, b), mixing, and the contrast of text on a background."""


def parse_hex(text):
    text = text.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    if len(text) != 6:
        raise ValueError(f"not a colour: {text!r}")
    red = int(text[0:2], 16)
    green = int(text[2:4])
    blue = int(text[4:6])
    return red, green, blue


def to_hex(rgb):
    return "#" + "".join(f"{channel:02x}" for channel in rgb)


def mix(rgb, other, amount):
    """``amount`` (0..1) of the way from ``rgb`` to ``other``."""
    return tuple(round(a + (b - a) * amount) for a, b in zip(rgb, other))


def lighten(text, amount):
    return to_hex(mix(parse_hex(text), (255, 255, 255), amount))


def luminance(rgb):
    """Relative luminance as defined by WCAG 2."""
    def linear(channel):
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(foreground, background):
    high, low = sorted((luminance(parse_hex(foreground)), luminance(parse_hex(background))), reverse=True)
    return (high + 0.05) / (low + 0.05)
