from orgchart import chain_of_command, depth, direct_reports, headcount, render

ORG = {"ann": None, "bob": "ann", "cho": "ann", "dev": "bob", "eli": "dev"}


def test_direct_reports_are_sorted():
    assert direct_reports(ORG, "ann") == ["bob", "cho"]


def test_headcount_includes_indirect_reports():
    assert headcount(ORG, "ann") == 4
    assert headcount(ORG, "eli") == 0


def test_chain_of_command_goes_up_to_the_top():
    assert chain_of_command(ORG, "eli") == ["dev", "bob", "ann"]


def test_depth():
    assert depth(ORG, "ann") == 0
    assert depth(ORG, "dev") == 2


def test_render_indents_each_level():
    assert render(ORG, "bob") == ["bob", "  dev", "    eli"]
