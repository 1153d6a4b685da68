def average(scores):
    return sum(scores) / len(scores)


def letter(score):
    for floor, grade in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= floor:
            return grade
    return "F"


def report(students):
    """Map each student to (average, letter); a student without scores averages 0."""
    out = {}
    for name, scores in students.items():
        avg = average(scores)
        out[name] = (avg, letter(avg))
    return out
