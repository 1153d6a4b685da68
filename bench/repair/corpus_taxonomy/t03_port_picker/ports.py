"""Picks ports for local development servers, skipping ports in use and reserved ones."""

RESERVED = {5432, 6379, 8080}
LOW, HIGH = 1024, 65535


def parse_listening(text):
    """Ports from socket listings such as 'tcp LISTEN 0 128 127.0.0.1:8000 0.0.0.0:*'."""
    ports = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[1] == "LISTEN":
            ports.add(int(fields[4].rsplit(":", 1)[1]))
    return ports


def is_free(port, in_use):
    return LOW <= port <= HIGH and port not in in_use and port not in RESERVED


def next_free_port(preferred, in_use):
    """``preferred`` when it is free, else the first free port above it."""
    port = preferred
    while not is_free(port, in_use):
        if port >= HIGH:
            raise RuntimeError(f"no free port from {preferred} up")
        preferred += 1
    return port


def pick_ports(services, first, in_use):
    """{service: port}, a different free port for each service, counting up from ``first``."""
    taken = set(in_use)
    chosen = {}
    for service in services:
        chosen[service] = next_free_port(first, taken)
        taken.add(chosen[service])
    return chosen
