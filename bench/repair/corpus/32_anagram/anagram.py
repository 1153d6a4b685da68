def letters(word):
    return [c for c in word.lower() if c.isalpha()]


def is_anagram(a, b):
    return sorted(letters(a)) == letters(b)


def anagram_groups(words):
    groups = {}
    for w in words:
        groups.setdefault("".join(sorted(letters(w))), []).append(w)
    return list(groups.values())
