"""Issue 36, item 4: the secrets the redaction missed: a token in ``.git/config``'s remote URL
read by ``read_file``, secrets printed base64- or hex-encoded, unquoted ``KEY = value`` lines of
known providers, and netrc passwords. Fake secrets only."""

from __future__ import annotations

import base64
from pathlib import Path

from codur.sandbox.secrets import redact
from codur.tools import ToolExecutor

TOKEN = "ghp_" + "A1b2C3d4" * 4 + "abcd"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def test_unquoted_credential_lines_of_known_providers_are_redacted() -> None:
    text = (f"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {AWS_SECRET}\n"
            "export HF_TOKEN=hf_abcdefghijklmnopqrstuvwx\nmachine pypi.org login me password s3cr3t-passw0rd-x\n")
    out = redact(text)
    assert AWS_SECRET not in out.text and "hf_abcdefghijklmnop" not in out.text and "s3cr3t-passw0rd" not in out.text
    assert "aws_secret_access_key = [REDACTED Credential]" in out.text
    assert "password [REDACTED netrc Password]" in out.text


def test_encoded_secrets_are_redacted_and_plain_encoded_text_is_not() -> None:
    text = (f"b64 {base64.b64encode(TOKEN.encode()).decode()}\nhex {TOKEN.encode().hex()}\n"
            f"urlsafe {base64.urlsafe_b64encode(f'aws_secret_access_key={AWS_SECRET}'.encode()).decode()}\n")
    out = redact(text)
    assert out.text == ("b64 [REDACTED GitHub Token (base64)]\nhex [REDACTED GitHub Token (hex)]\n"
                        "urlsafe [REDACTED Credential (base64)]\n")
    plain = ("data = 'aGVsbG8gd29ybGQgdGhpcyBpcyBqdXN0IHRleHQ='\n"
             "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
             "OPENAI_API_KEY = os.environ['OPENAI_API_KEY']\npassword is required for login\n")
    assert redact(plain).text == plain


def test_read_file_of_git_config_shows_no_token(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://x-access-token:{TOKEN}@github.com/o/r\n')
    (repo / "notes.txt").write_text(f"aws_secret_access_key = {AWS_SECRET}\n")
    events: list[dict] = []
    ex = ToolExecutor(repo, on_event=events.append)
    for path in (".git/config", "notes.txt"):
        result = ex.execute("read_file", {"path": path})
        assert result.ok and TOKEN not in result.output and AWS_SECRET not in result.output
        assert "[REDACTED" in result.output
    assert [e["tool"] for e in events if e["event_type"] == "secret.redacted"] == ["read_file", "read_file"]


def test_code_that_prints_a_secret_encoded_is_redacted(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "leak.py").write_text(f"import base64\nprint(base64.b64encode({TOKEN!r}.encode()).decode())\n")
    result = ToolExecutor(repo).execute("run_python_file", {"path": "leak.py"})
    encoded = base64.b64encode(TOKEN.encode()).decode()
    assert encoded not in result.output and "[REDACTED GitHub Token (base64)]" in result.output, result.output
