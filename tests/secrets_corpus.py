"""The secrets corpus (issue #12): one planted secret and one look-alike per kind, and ordinary
strings that must come through unchanged. Secrets are generated at import time from a seeded
generator, so no credential-shaped literal sits in this file (and no scanner trips on it).

`KINDS`: (kind, text holding the secret, the secret, a look-alike that must stay unchanged).
`ORDINARY`: strings a coding session is full of; at most 2 % may be changed by redaction.
"""

from __future__ import annotations

import base64
import random
import string

_LOWER, _UPPER, _DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
_ALNUM = _LOWER + _UPPER + _DIGITS
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"


def _r(seed: str, alphabet: str, n: int) -> str:
    rng = random.Random(seed)
    while True:
        out = "".join(rng.choice(alphabet) for _ in range(n))
        need = [a for a in (_LOWER, _UPPER, _DIGITS) if set(a) & set(alphabet)]
        if all(set(out) & set(a) for a in need):  # every class of the alphabet present
            return out


def _pem() -> str:
    body = base64.b64encode(random.Random("pem").randbytes(96)).decode()
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


AWS_SECRET = _r("aws-secret", _B64, 40)
_ENTRIES: list[tuple[str, str, str, str]] = [
    # kind, text (with {s}), secret, look-alike
    (
        "aws-key",
        "key id {s} in prod",
        "AKIA" + _r("akia", _UPPER + _DIGITS, 16),
        "AKIA is the prefix of long-term access key ids",
    ),
    (
        "aws-secret-key",
        "the secret access key is {s} (rotate it)",
        AWS_SECRET,
        "commit 3f7a9c2e1b4d5f6a7c8e9d0b1a2c3e4f5a6b7c8d fixed it",
    ),
    (
        "aws-secret-assignment",
        "aws_secret_access_key = {s}",
        _r("aws2", _B64, 40),
        "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
    ),
    (
        "anthropic-key",
        "use {s} for the eval",
        "sk-ant-api03-" + _r("ant", _ALNUM + "_-", 90),
        "sk-ant is the prefix Anthropic uses",
    ),
    (
        "openai-key",
        "OPENAI {s}",
        "sk-proj-" + _r("oai", _ALNUM, 48),
        '<div class="sk-spinner-double-bounce sk-fading-circle-large">',
    ),
    (
        "stripe-secret",
        "charge with {s}",
        "sk_live_" + _r("stripe", _ALNUM, 24),
        "sk_live_mode_enabled = True",
    ),
    (
        "stripe-restricted",
        "read-only {s}",
        "rk_live_" + _r("rk", _ALNUM, 24),
        "rk_live is the restricted-key prefix",
    ),
    (
        "stripe-webhook",
        "STRIPE_WEBHOOK={s}",
        "whsec_" + _r("whsec", _ALNUM, 32),
        "whsec_ marks webhook signing secrets",
    ),
    ("github-token", "gh auth {s}", "ghp_" + _r("ghp", _ALNUM, 36), "ghp_ tokens expire"),
    (
        "github-pat",
        "pat {s}",
        "github_pat_" + _r("pat", _ALNUM + "_", 82),
        "github_pat_ is the fine-grained prefix",
    ),
    ("gitlab-token", "glab {s}", "glpat-" + _r("glpat", _ALNUM, 20), "the glpat- prefix"),
    (
        "slack-token",
        "bot {s}",
        "xoxb-" + _r("xoxb1", _DIGITS, 12) + "-" + _r("xoxb", _ALNUM, 24),
        "xoxb is the bot token prefix",
    ),
    (
        "slack-webhook",
        "POST {s}",
        "https://hooks.slack.com/services/T0"
        + _r("sw", _UPPER + _DIGITS, 8)
        + "/B0"
        + _r("sw2", _UPPER + _DIGITS, 8)
        + "/"
        + _r("sw3", _ALNUM, 24),
        "see https://hooks.slack.com/ in the docs",
    ),
    (
        "discord-webhook",
        "hook {s}",
        "https://discord.com/api/webhooks/"
        + _r("dw", _DIGITS, 18)
        + "/"
        + _r("dw2", _ALNUM + "_-", 68),
        "https://discord.com/developers/docs/resources/webhook",
    ),
    (
        "google-api-key",
        "maps {s}",
        "AIza" + _r("aiza", _ALNUM + "_-", 35),
        "AIzaSy is how the keys start",
    ),
    (
        "google-oauth-secret",
        "client {s}",
        "GOCSPX-" + _r("gocspx", _ALNUM + "_-", 28),
        "GOCSPX- client secrets",
    ),
    (
        "google-oauth-token",
        "token {s}",
        "ya29." + _r("ya29", _ALNUM + "_-", 120),
        "ya29 is the access token prefix",
    ),
    (
        "npm-token",
        "publish with {s}",
        "npm_" + _r("npm", _ALNUM, 36),
        "npm_config_cache=/tmp/npm-cache",
    ),
    (
        "npm-auth",
        "//registry.npmjs.org/:_authToken={s}",
        _r("npmauth", _HEX, 8)
        + "-"
        + _r("npmauth2", _HEX, 4)
        + "-4"
        + _r("npmauth3", _HEX, 3)
        + "-a"
        + _r("n4", _HEX, 3)
        + "-"
        + _r("n5", _HEX, 12),
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    ),
    (
        "pypi-token",
        "twine {s}",
        "pypi-AgEIcHlwaS5vcmc" + _r("pypi", _ALNUM + "_-", 120),
        "pip install --index-url https://pypi.org/simple pypi-simple",
    ),
    ("twilio-key", "twilio {s}", "SK" + _r("twilio", _HEX, 32), "SKU12345 is back in stock"),
    (
        "sendgrid-key",
        "mail {s}",
        "SG." + _r("sg1", _ALNUM + "_-", 22) + "." + _r("sg2", _ALNUM, 43),
        "load SG.json and SG.yaml",
    ),
    ("huggingface-token", "hub {s}", "hf_" + _r("hf", _ALNUM, 34), "hf_hub_download(repo_id)"),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};",
        _r("azure", _B64, 86) + "==",
        "AccountKey=<your storage key>",
    ),
    (
        "azure-sas",
        "GET https://x.blob.core.windows.net/c/b?sv=2022&sig={s}",
        _r("sas", _ALNUM, 43) + "%3D",
        "?sig=abc and ?sv=2022",
    ),
    ("digitalocean-token", "doctl {s}", "dop_v1_" + _r("do", _HEX, 64), "dop_v1_ prefix"),
    ("shopify-token", "shop {s}", "shpat_" + _r("shop", _HEX, 32), "shpat_ tokens"),
    ("mailchimp-key", "mc {s}", _r("mc", _HEX, 32) + "-us6", "deploy build-us2 region"),
    ("mailgun-key", "mg {s}", "key-" + _r("mg", _HEX, 32), "a key-value store"),
    ("square-token", "square {s}", "EAAA" + _r("sq", _ALNUM + "_-", 60), "EAAA prefix"),
    (
        "telegram-bot-token",
        "bot {s}",
        _r("tg", _DIGITS, 10) + ":AA" + _r("tg2", _ALNUM + "_-", 33),
        "meeting at 12:30, room 10:AA",
    ),
    (
        "discord-bot-token",
        "discord {s}",
        "M"
        + _r("db1", _ALNUM, 23)
        + "."
        + _r("db2", _ALNUM, 6)
        + "."
        + _r("db3", _ALNUM + "_-", 27),
        "M.N.O. Smith wrote it",
    ),
    (
        "atlassian-token",
        "jira {s}",
        "ATATT3xFfGF0" + _r("atl", _ALNUM + "_-", 180),
        "ATATT3 tokens are long",
    ),
    ("doppler-token", "doppler {s}", "dp.pt." + _r("dp", _ALNUM, 43), "dp.pt. prefix"),
    ("linear-key", "linear {s}", "lin_api_" + _r("lin", _ALNUM, 40), "lin_api_url = base"),
    ("notion-token", "notion {s}", "ntn_" + _r("ntn", _ALNUM, 46), "secret_santa.py: ok"),
    (
        "postman-key",
        "postman {s}",
        "PMAK-" + _r("pm1", _HEX, 24) + "-" + _r("pm2", _HEX, 34),
        "PMAK- keys",
    ),
    ("vault-token", "vault {s}", "hvs." + _r("hvs", _ALNUM + "_-", 90), "hvs.example.org"),
    (
        "age-secret-key",
        "age {s}",
        "AGE-SECRET-KEY-1" + _r("age", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        "AGE-SECRET-KEY-1 lines are secret",
    ),
    ("databricks-token", "dbx {s}", "dapi" + _r("dapi", _HEX, 32), "dapi is the prefix"),
    ("pulumi-token", "pulumi {s}", "pul-" + _r("pul", _HEX, 40), "pul-request template"),
    (
        "grafana-token",
        "grafana {s}",
        "glsa_" + _r("glsa", _ALNUM, 32) + "_" + _r("gl2", _HEX, 8),
        "glsa_ service accounts",
    ),
    ("newrelic-key", "nr {s}", "NRAK-" + _r("nrak", _UPPER + _DIGITS, 27), "NRAK- user keys"),
    ("alibaba-key", "aliyun {s}", "LTAI" + _r("ltai", _ALNUM, 20), "LTAI prefix"),
    ("supabase-token", "supabase {s}", "sbp_" + _r("sbp", _HEX, 40), "sbp_ tokens"),
    (
        "planetscale-token",
        "pscale {s}",
        "pscale_tkn_" + _r("ps", _ALNUM + "_", 43),
        "pscale_tkn_ prefix",
    ),
    ("sentry-token", "sentry {s}", "sntrys_" + _r("sntry", _ALNUM, 60), "sntrys_ prefix"),
    (
        "jwt",
        "cookie {s}",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx"
        + _r("jwt", _ALNUM, 20)
        + "In0."
        + _r("jwt2", _ALNUM + "_-", 43),
        'eyJ is base64 for {"',
    ),
    (
        "bearer",
        "curl -H 'Authorization: Bearer {s}' https://api.example.org",
        _r("bearer", _ALNUM, 40),
        "the bearer authentication scheme",
    ),
    (
        "basic-auth",
        "curl -H 'Authorization: Basic {s}' https://api.example.org",
        base64.b64encode(b"deploy:" + _r("basic", _ALNUM, 16).encode()).decode(),
        "basic functionality works, Basic usage",
    ),
    (
        "url-password",
        "git clone https://bob:{s}@git.example.org/x.git",
        _r("urlpw", _ALNUM, 14),
        "ssh git@github.com:org/repo.git",
    ),
    (
        "curl-user",
        "curl -u deploy:{s} https://ci.example.org/api",
        _r("curlu", _ALNUM, 14),
        "curl -u $CI_USER:$CI_TOKEN https://ci.example.org/api",
    ),
    (
        "mysql-password",
        "mysql -h db -u root -p{s} app",
        _r("mysql", _ALNUM, 12),
        "mysql -h db -u root -p app",
    ),
    (
        "docker-login",
        "docker login -u me -p {s} registry.example.org",
        _r("docker", _ALNUM, 20),
        "docker login -u me --password-stdin registry.example.org",
    ),
    ("private-key", "key:\n{s}\nend", _pem(), "-----BEGIN PUBLIC KEY-----"),
    (
        "password-assignment",
        "DB_PASSWORD={s}",
        "hunter2!" + _r("hunter", _DIGITS, 2),
        "password_reset_url=/accounts/reset",
    ),
    ("token-assignment", "GITHUB_TOKEN: '{s}'", _r("tok", _ALNUM, 24), "tokenizer=cl100k_base"),
    (
        "api-key-export",
        "export API_KEY = '{s}'",
        _r("apikey", _ALNUM, 32),
        "export API_KEY_FILE = '/run/secrets/api_key'",
    ),
    (
        "password-flag",
        "deploy --password {s} --yes",
        _r("pwflag", _ALNUM, 12),
        "deploy --password-file /run/secrets/pw --yes",
    ),
    (
        "client-secret-json",
        '{{"client_secret": "{s}"}}',
        _r("cs", _ALNUM + "-_", 24),
        '{"client_secret_name": "prod-oauth"}',
    ),
]
KINDS: list[tuple[str, str, str, str]] = [
    (kind, text.format(s=secret), secret, negative) for kind, text, secret, negative in _ENTRIES
]

ORDINARY: list[str] = [
    # the examples
    "password_reset_url=/accounts/reset",
    "tokenizer=cl100k_base",
    "secret_santa.py: ok",
    '<span class="sk-spinner sk-spinner-pulse"></span>',
    # code
    "max_tokens=8000 and budget_tokens: 500",
    "num_tokens = len(encoding.encode(text))",
    "token_count: 1532",
    "auth_token_ttl=3600",
    "password_hash = bcrypt.hashpw(pw, salt)",
    "def check_password(user, raw):",
    "token = request.headers.get('Authorization')",
    "api_key = os.environ['OPENAI_API_KEY']",
    "API_KEY_ENV = 'OPENAI_API_KEY'",
    "api_key_header = 'X-API-Key'",
    "secret_name: prod-db-password",
    "is_secret = False",
    "password: str = Field(min_length=12)",
    "token_type = 'bearer'",
    "pad_token = '[PAD]'",
    'eos_token = "</s>"',
    "bos_token: <s>",
    "session_key_prefix = 'sess:'",
    "private_key_path = '~/.ssh/id_ed25519'",
    "access_key_id_env = 'AWS_ACCESS_KEY_ID'",
    "credentials_file = '/home/me/.aws/credentials'",
    "const tokenize = (s) => s.split(' ');",
    "let passwordStrength = score(pw);",
    "if (!apiKeyValid) throw new Error('missing key');",
    "SECRET_KEY = env('DJANGO_SECRET_KEY')",
    "password = getpass.getpass()",
    "token = None",
    "secret = true",
    "api_key: Optional[str] = None",
    "export PATH=$HOME/.local/bin:$PATH",
    "export NODE_ENV=production",
    "export API_URL=https://api.example.org/v2",
    "export DATABASE_URL=$DATABASE_URL",
    "import { useState, useEffect } from 'react';",
    "from ccstate.ledger import core as ledger",
    "for i in range(len(items)):",
    "return {'status': 'ok', 'count': 3}",
    "class TokenBucket(RateLimiter):",
    "fn parse_token(input: &str) -> Result<Token, Error> {",
    "SELECT id, name FROM users WHERE email = ?;",
    "CREATE INDEX idx_tokens_user ON tokens(user_id);",
    "<input type='password' name='password' autocomplete='current-password'>",
    ".sk-circle .sk-child { width: 100%; }",
    "background: url(/static/img/skyline-2x.png) no-repeat;",
    "grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr));",
    "@media (max-width: 768px) { .nav { display: none; } }",
    # commands
    "git commit -m 'ledger: serve in full when the epoch is unknown (#12)'",
    "git log --oneline main..HEAD",
    "git checkout -b feature/token-refresh",
    "git push origin HEAD:refs/heads/main",
    "git diff --stat HEAD~3",
    "pytest tests/ledger -q -k token",
    "npm run build -- --mode production",
    "npm install --save-dev typescript@5.6.2",
    "pip install -e '.[test]'",
    "cargo test --release -- --nocapture",
    "go test ./... -run TestPassword",
    "docker run -u 1000:1000 -v $PWD:/src image:latest",
    "docker login -u me --password-stdin ghcr.io",
    "mysql -u root -p app_db",
    "mysql -P3306 -h 127.0.0.1 -u app",
    "psql postgres://localhost:5432/app",
    "ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5",
    "scp build.tar.gz deploy@host:/srv/app/",
    "curl -s https://api.github.com/repos/org/repo/pulls?state=open",
    "curl -u $USER:$TOKEN https://ci.example.org",
    "kubectl get secret app-tls -o yaml",
    "kubectl create secret generic db --from-file=./password.txt",
    "aws s3 cp s3://bucket/key.json ./key.json",
    "gh pr create --title 'Rotate tokens' --body 'see issue'",
    "ruff check src tests --fix",
    "mypy src/ccstate/redact.py",
    "make test PYTHON=python3.11",
    "ls -la ~/.config/gh",
    "find . -name '*.pem' -not -path './node_modules/*'",
    "openssl rand -base64 32",
    "export GIT_OPTIONAL_LOCKS=0",
    "ccstate decide 'Use SQLite' --decision 'one file'",
    # logs and output
    "ERROR: password authentication failed for user 'app'",
    "Invalid token: expected 3 segments, got 2",
    "401 Unauthorized: missing API key",
    "TokenExpiredError: jwt expired at 2026-11-30T12:00:00Z",
    "AssertionError: assert 2 == 1",
    "FAILED tests/test_redact.py::test_token_shapes - KeyError: 'kind'",
    "=== 650 passed, 1 skipped in 65.26s ===",
    "warning: LF will be replaced by CRLF in src/app.ts",
    "npm WARN deprecated uuid@3.4.0: Please upgrade to version 7 or higher.",
    "Compiling serde v1.0.210",
    "Finished `release` profile [optimized] target(s) in 41.07s",
    "ok  	github.com/org/app/internal/auth	0.412s",
    "Traceback (most recent call last):",
    '  File "/srv/app/auth.py", line 42, in verify_token',
    "KeyError: 'access_token'",
    "Connection refused (os error 111)",
    "fatal: not a git repository (or any of the parent directories): .git",
    "Successfully installed detect-secrets-1.5.0",
    "uuid 550e8400-e29b-41d4-a716-446655440000 created",
    "sha256 e665b2609a1d8f3c4b5a6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "merge base a1b2c3d",
    "build id 20261201T003702Z",
    "request-id req_01HXYZ9ABCDEF",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
    "span 00f067aa0ba902b7 took 12ms",
    "listening on http://127.0.0.1:8080",
    "GET /api/v1/users/42/tokens 200 3.1ms",
    "POST /login 302 -> /dashboard",
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "Content-Type: application/json; charset=utf-8",
    "Authorization header missing",
    "Bearer tokens are accepted on /v2 only",
    "basic auth is disabled",
    # prose
    "the token budget and the password policy both need review",
    "Rotate the API key every 90 days and store it in the vault.",
    "We decided to keep secrets out of the repository.",
    "Tokens are hashed with SHA-256 before they are stored.",
    "The secret to fast tests is fewer subprocesses.",
    "Password managers generate long random passwords.",
    "Use an access key with least privilege.",
    "Read big.py again: the notice points at Read #1.",
    "Next: run the e2e suite, then update CHANGELOG.md.",
    "The private key never leaves the HSM.",
    "Set AWS_PROFILE=staging before running terraform plan.",
    "The skyline renderer uses sk-draw internally.",
    "Skipping sk_test fixtures on CI",
    "Keys like AKIA… must never be committed.",
    "see docs/RELIABILITY.md for the figures",
    "TODO(dana): remove the legacy token endpoint",
    "FIXME: password reset emails are sent twice",
    "D12: store sessions in SQLite",
    "branch main @ 13e476b",
    "handoff: .ccstate/handoff/branches/main/abc.md",
    # paths
    "/home/dana/projects/api-gateway/src/auth/tokens.py",
    "src/ccstate/ledger/store.py:287",
    "~/.config/app/credentials.example.json",
    "C:\\Users\\dana\\AppData\\Local\\Temp\\build.log",
    "node_modules/@types/node/index.d.ts",
    "./scripts/rotate_secrets.sh --dry-run",
    "tests/fixtures/secrets/negative.txt",
    "/work/wt/issue-12/src/ccstate/hooks/post_tool_use.py",
    "static/css/sk-spinner.min.css",
    "assets/img/Logo2xDarkBackgroundHighContrast.png",
    # data and config
    '{"name": "ccstate", "version": "0.1.0", "private": true}',
    '{"password_min_length": 12, "token_ttl": 3600}',
    "timeout: 30\nretries: 3\nbackoff: exponential",
    "[tool.ruff]\nline-length = 100",
    "version = '2.1.328'",
    "python_requires = '>=3.10'",
    "image: postgres:16-alpine",
    "ports:\n  - '5432:5432'",
    "volumes: ['./data:/var/lib/postgresql/data']",
    "matrix: {python: ['3.10', '3.11', '3.12']}",
    "LOG_LEVEL=debug",
    "FEATURE_FLAGS=new-ledger,fast-report",
    "cron: '0 3 * * *'",
    "color: #1f2937; border-radius: 0.5rem;",
    "base64 of hello is aGVsbG8=",
    "the hash is 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
    "ratio 0.529 of 1,869,519 tokens",
    "2026-12-01T00:37:02Z PreCompact: ok",
]
