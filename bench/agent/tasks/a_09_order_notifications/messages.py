"""Text messages sent to customers when their order changes status."""

SMS_LIMIT = 160


def first_name(full_name):
    """'Ada Lovelace' -> 'Ada'; falls back to 'there' for empty names."""
    parts = full_name.split()
    return parts[0] if parts else "there"


def status_message(order):
    """Build the notification text for ``order`` (a dict from the orders API)."""
    name = first_name(order.get("name", ""))
    status = order["status"]
    if status == "shipped":
        return f"Hi {name}, order #{order['id']} has shipped with {order['carrier']}."
    if status == "delayed":
        return "Hi {name}, order #{order['id']} is delayed. We'll update you soon."
    if status == "delivered":
        return f"Hi {name}, order #{order['id']} was delivered. Enjoy!"
    raise ValueError(f"no message for status {status!r}")


def truncate_sms(text, limit=SMS_LIMIT):
    """Cut ``text`` to fit in one SMS, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"
