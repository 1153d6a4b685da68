"""Issue 52, item 5: the risky-patch gate's patch is written only when the user passes
``--allow-risky-patches``, and the summary names the call either way."""

from __future__ import annotations

from pathlib import Path

from .conftest import call

RISKY = "import platform\n\n\ndef leak():\n    platform.os.system('true')\n"


def test_a_risky_edit_is_written_only_with_allow_risky_patches(invoice_repo: Path, invoke, scripted) -> None:
    before = (invoice_repo / "billing.py").read_text()
    scripted([call("write_file", path="helper.py", content=RISKY), "Done."])
    refused = invoke("make the failing tests pass", "--repo", str(invoice_repo))
    assert not (invoice_repo / "helper.py").exists()
    assert "risky change to helper.py (not written): not on the allowlist: import platform; process: " \
        "platform.os.system(...)" in refused.stdout, refused.stdout
    scripted([call("write_file", path="helper.py", content=RISKY), "Done."])
    allowed = invoke("make the failing tests pass", "--repo", str(invoice_repo), "--allow-risky-patches",
                     "--keep-failed")
    assert (invoice_repo / "helper.py").read_text() == RISKY
    assert "risky change to helper.py (approved): " in allowed.stdout, allowed.stdout
    assert (invoice_repo / "billing.py").read_text() == before
