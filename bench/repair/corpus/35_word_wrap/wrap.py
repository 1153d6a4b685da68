def wrap(text, width):
    """Greedy word wrap: lines of at most width characters."""
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + len(word) + 1 > width + 1:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines
