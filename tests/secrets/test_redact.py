from __future__ import annotations

from pathlib import Path

import pytest

from ccstate.secrets import detectors, envfile, redact, shapes

# Secrets are assembled at run time so this file itself trips no secret scanner.
AWS = "AKIA" + "Q7X2M4N6P8R1T3V5"
ANTHROPIC = "sk-ant-" + "api03-" + "Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9"
OPENAI = "sk-" + "proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2"
GITHUB = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop"
GITLAB = "glpat-" + "abcdefghij0123456789"
SLACK = "xoxb-" + "1234567890-abcdefghij"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nabc+/=\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"key {AWS} here", AWS, "aws-key"),
        (f"use {ANTHROPIC}", ANTHROPIC, "anthropic-key"),
        (f"openai {OPENAI}.", OPENAI, "openai-key"),
        (f"gh {GITHUB}", GITHUB, "github-pat"),
        (f"pat {GITHUB_PAT}", GITHUB_PAT, "github-token"),
        (f"gitlab {GITLAB}", GITLAB, "gitlab-pat"),
        (f"slack {SLACK}", SLACK, "slack-token"),
        (f"jwt {JWT}", JWT, "jwt"),
        (f"{PEM} after", "MIIEowIBAAKCAQEAx", "private-key"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXkt",
            "b3BlbnNzaC1rZXkt",
            "private-key",
        ),
        (
            "curl -H 'Authorization: Bearer abcdefghijklmnop12345'",
            "abcdefghijklmnop12345",
            "curl-auth-header",
        ),
        ("git clone https://bob:s3cretpw@example.org/x", "s3cretpw", "url-password"),
        ("password=hunter2", "hunter2", "assignment"),
        ('DB_PASSWORD="pa ss word"', "pa ss word", "assignment"),
        ("{'client_secret': 'zzzzzz'}", "zzzzzz", "assignment"),
        ("token: abc123def", "abc123def", "assignment"),
        ("mytool --password hunter22 -v", "hunter22", "assignment"),
        ("mytool --api-key=k3Yq9TzW2xLm", "k3Yq9TzW2xLm", "generic-api-key"),
    ],
)
def test_each_secret_shape_is_redacted(text: str, secret: str, kind: str) -> None:
    out = redact.redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


def test_names_and_surroundings_are_kept() -> None:
    assert redact.redact(f"export ANTHROPIC_API_KEY={ANTHROPIC} # mine") == (
        "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key] # mine"
    )
    assert redact.redact('{"password": "x1y2z3", "user": "bob"}') == (
        '{"password": "[REDACTED:assignment]", "user": "bob"}'
    )


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=8000 and budget_tokens: 500",
        "password=${DB_PASSWORD} token = get_token() api_key: string",
        "secret = os.environ['SECRET']",
        "no secrets here: the token budget and the password policy.",
        "already [REDACTED:aws-key] and password=[REDACTED:assignment]",
    ],
)
def test_references_counts_and_prose_are_left_alone(text: str) -> None:
    assert redact.redact(text) == text


def test_env_values_pick_secrets_not_ordinary_settings() -> None:
    text = (
        "# comment\nPORT=3000\nNODE_ENV=development\nDEBUG=true\nAPI_KEY=abcd1234\n"
        "export SESSION='Zq9-!x7yy'\nURL=http://localhost:3000\nDB=postgres://u:p@h/d\n"
        "NAME=myapp\nEMPTY=\nSHORTKEY=ab\nREF=${OTHER}\n"
    )
    assert envfile.env_values([text]) == ["abcd1234", "Zq9-!x7yy", "postgres://u:p@h/d"]


def test_for_project_hides_dotenv_values_everywhere(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("STRIPE=rk_live_PLANTED1234\n")
    (tmp_path / ".env.local").write_text('OTHER_SECRET="local-only-value"\n')
    (tmp_path / ".envrc-not-a-file").mkdir()
    redactor = redact.for_project(tmp_path)
    out = redactor.redact("charge with rk_live_PLANTED1234 and local-only-value, port 3000")
    assert out == "charge with [REDACTED:env] and [REDACTED:env], port 3000"


def test_literals_only_mode_skips_the_patterns(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("X_TOKEN=literal-value-1\n")
    redactor = redact.for_project(tmp_path, patterns=False)
    assert redactor.redact(f"literal-value-1 {AWS}") == f"[REDACTED:env] {AWS}"


def test_same_input_same_output() -> None:
    text = f"{AWS} {GITHUB} password=x1y2"
    assert redact.redact(text) == redact.redact(text) == redact.redact(redact.redact(text))


def test_detect_secrets_rules_are_cached_so_hooks_do_not_import_it(tmp_path: Path) -> None:
    """Importing detect-secrets costs a SessionEnd hook hundreds of milliseconds: its regexes
    are read once and kept in the user's cache (#12)."""
    import subprocess
    import sys

    pytest.importorskip("detect_secrets")
    from helpers import hook_env

    code = (
        "import sys; from ccstate.secrets import detectors; "
        "print(len(detectors.maintained_rules()), 'detect_secrets' in sys.modules)"
    )
    env = hook_env(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    first, second = (r.stdout.split() for r in runs)
    assert first[1] == "True" and second == [first[0], "False"], [r.stderr for r in runs]
    assert int(first[0]) >= len(detectors.MAINTAINED_PLUGINS)
    assert (tmp_path / "cache" / "ccstate" / "detect-secrets-rules.json").is_file()


# Issue #23: shapes an outside check found kept. Assembled at run time (no scanner trips).
AWS_41 = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq9Q2v8LmT4kZ1"[:19]  # 41 characters, with `/`
SIGNING_35 = "Zq8v/Lm3T9/xR2kP7" + "wN4bH6jF1cY5dS0gAe"  # 35 characters, with `/`


@pytest.mark.parametrize(
    "text",
    [
        f"aws_secret_access_key = {AWS_41}",
        f"AWS_SECRET_ACCESS_KEY={AWS_41}",
        f"SIGNING_KEY={SIGNING_35}",
        f'signing_key: "{SIGNING_35}"',
    ],
)
def test_random_values_with_slashes_are_secrets_not_paths(text: str) -> None:
    assert len(AWS_41) == 41 and len(SIGNING_35) == 35
    out = redact.redact(text)
    assert AWS_41 not in out and SIGNING_35 not in out, out


@pytest.mark.parametrize(
    "value", ["src/app/main.py", "/run/secrets/api_key", "./keys/dev.pem", "config/prod/v2"]
)
def test_word_paths_stay_paths(value: str) -> None:
    assert not shapes.looks_random(value)
    assert redact.redact(f"api_key_file = {value}") == f"api_key_file = {value}"
    assert redact.redact(f"signing_key: {value}") == f"signing_key: {value}"


def _pem_of(size: int) -> tuple[str, str]:
    import base64
    import random

    body = base64.b64encode(random.Random(size).randbytes(size)).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----", body


@pytest.mark.parametrize("size", [1200, 2400, 4800])
def test_a_tail_cut_sees_a_private_key_from_its_begin_line(size: int) -> None:
    """#23: the last lines of `cat key.pem` are the key's body; its BEGIN line is KBs up."""
    pem, body = _pem_of(size)
    text = "build step ok\n" * 800 + pem
    for tail in (300, 2000):
        kept = redact.before_cut(text, tail=tail)[-tail:]
        assert not any(body[i : i + 12] in kept for i in range(0, len(body) - 12, 5)), tail


def test_a_head_cut_keeps_no_part_of_a_secret_however_many_marks_shorten_it() -> None:
    """Marks shorter than what they replace pull later text into the kept head: the window
    grows until the cut stays clear of its raw edge."""
    pem, _body = _pem_of(2400)
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ"
    keys = "\n".join([pem] * 3) + "\n"  # ~10 KB that redact to ~80 characters
    for at in (3000 + 1024, 3000 + 8192):  # where a fixed window would end: it cuts the token
        text = keys + "x" * (at - 20 - len(keys)) + f" {token} end\n" + "more output\n" * 2000
        kept = redact.before_cut(text, head=3000)[:3000]
        assert token[:12] not in kept and "[REDACTED:" in kept, at


def test_before_cut_leaves_short_texts_redacted_whole() -> None:
    text = f"deploy {AWS} now"
    assert redact.before_cut(text, head=5) == redact.redact(text)
    assert redact.before_cut(text, tail=5) == redact.redact(text)
