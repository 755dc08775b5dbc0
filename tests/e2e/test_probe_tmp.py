import json
from fake_api import *

def test_probe(claude, fake_api, claude_home):
    fake_api.set_script([text("first answer")])
    _, first = claude("remember the number 42")
    run = claude("/compact keep the number", resume=first["session_id"])
    print(run.result)
    for p in claude_home.glob(".claude/projects/*/*.jsonl"):
        for line in p.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("type") in ("system","user"): print(rec.get("type"), rec.get("subtype"), str(rec.get("message",{}).get("content"))[:200])
    print(fake_api.summary())
    c = fake_api.compaction_requests()[0]
    print(json.dumps(c["messages"][-1])[-600:])
    assert 0
