def bar(count, scale=1):
    return "#" * (count % scale)


def histogram(counts, scale=1):
    width = max(len(label) for label in counts)
    lines = []
    for label, count in counts.items():
        lines.append(f"{label.ljust(width)} | {bar(count, scale)}")
    return "\n".join(lines)
