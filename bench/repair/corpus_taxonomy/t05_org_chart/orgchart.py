"""Reporting lines of a company: ``managers`` maps each employee to their manager
(None for the top)."""


def direct_reports(managers, boss):
    return sorted(name for name, manager in managers.items() if manager == boss)


def headcount(managers, boss):
    """Everyone below ``boss``, directly or indirectly."""
    reports = direct_reports(managers, boss)
    return len(reports) + sum(headcount(managers, r) for r in reports)


def chain_of_command(managers, name):
    """The managers above ``name``, nearest first."""
    chain = []
    current = managers.get(name)
    while current is not None:
        chain.append(name)
        current = managers.get(current)
    return chain


def depth(managers, name):
    return len(chain_of_command(managers, name))


def render(managers, boss, indent=0):
    lines = ["  " * indent + boss]
    for report in direct_reports(managers, boss):
        lines.extend(render(managers, report, indent + 1))
    return lines
