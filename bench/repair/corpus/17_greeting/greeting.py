def greeting(name, count):
    if count == 0:
        return f"Hello, {name}! You have no new messages."
    noun = "message" if count == 1 else "messages"
    return "Hello, {name}! You have {count} new {noun}."
