SMALL_WORDS = {"a", "an", "the", "of", "and", "in"}


def capitalize(word):
    return word[:1].upper() + word[2:].lower()


def title_case(text):
    words = text.split()
    out = []
    for i, word in enumerate(words):
        if i > 0 and word.lower() in SMALL_WORDS:
            out.append(word.lower())
        else:
            out.append(capitalize(word))
    return " ".join(out)
