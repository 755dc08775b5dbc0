"""A small git project with code in three languages, for the code index's tests (tests/repo,
tests/cli, tests/hooks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

FILES = {
    "src/webhook.py": '''"""Deliver events to subscribers."""

import time


class WebhookClient:
    """Posts events to a subscriber's URL."""

    def __init__(self, url):
        self.url = url

    def send_with_retry(self, event, attempts=3):
        """Send one event, retrying with exponential backoff."""
        for attempt in range(attempts):
            if self.post(event):
                return True
            time.sleep(2 ** attempt)
        return False

    def post(self, event):
        return bool(event)
''',
    "src/dates.py": """from datetime import date


def parse_date(text):
    # ISO dates only: 2026-03-01
    return date.fromisoformat(text)


def format_date(value):
    return value.isoformat()
""",
    "web/cart.ts": """export interface CartItem {
  sku: string;
  quantity: number;
}

export function totalPrice(items: CartItem[], prices: Map<string, number>): number {
  return items.reduce((sum, item) => sum + (prices.get(item.sku) ?? 0) * item.quantity, 0);
}
""",
    "src/app.py": """from dates import format_date, parse_date
from webhook import WebhookClient


def notify(url, text):
    client = WebhookClient(url)
    return client.send_with_retry(format_date(parse_date(text)))
""",
    "README.md": "# Demo\n\nA webhook client and a cart.\n",
    "notes.txt": "shopping list: milk, eggs\n",
}


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


def make_code_project(tmp_path: Path) -> Path:
    project = tmp_path / "code"
    for rel, text in FILES.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "t@example.org")
    git(project, "config", "user.name", "Tester")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "initial")
    return project
