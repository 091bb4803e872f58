#!/usr/bin/env python3
"""Smoke test: a real OpenViking 0.5.x server + the loopback stand-in, end to end.

Starts harness.py in a temporary directory, then talks plain HTTP with the user key:
  * a session with working memory on (memory_policy.working_memory.enabled) gets a
    conversation with a preference, a decision, a DB tip and one message whose
    `parts` hold a tool call; commit; poll the task until completed (<= 90 s);
  * memory_diff.json of the archive lists the extracted memories;
  * search/find on viking://user/<uid>/memories returns the preference for a
    paraphrased query;
  * the session context returns a `# Working Memory` latest_archive_overview;
  * a session with extraction switched off (memory_policy self/peer disabled) commits
    without any memory written;
  * both processes only listen on 127.0.0.1.
Measured times (server start, commit task, find latency) are printed at the end.

Run:  python3 tests/openviking/smoke_test.py    (stdlib only; needs the 0.5.2 venv, see
harness.py --server-bin / OPENVIKING_SERVER_BIN). OV_SMOKE_KEEP=1 keeps the work dir.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (stdlib-only helpers: http_json, listening_addresses)

TASK_TIMEOUT = 90.0
TIMINGS: dict[str, object] = {}


class OpenVikingSmokeTest(unittest.TestCase):
    workdir: str
    env: dict

    @classmethod
    def setUpClass(cls) -> None:
        cls.workdir = tempfile.mkdtemp(prefix="ov-smoke-")
        t0 = time.time()
        proc = subprocess.run([sys.executable, os.path.join(HERE, "harness.py"), "start", "--workdir", cls.workdir],
                              capture_output=True, text=True, timeout=150)
        if proc.returncode != 0:
            raise RuntimeError(f"harness start failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}")
        with open(os.path.join(cls.workdir, "env.json")) as f:
            cls.env = json.load(f)
        TIMINGS["server start: /health after (s)"] = cls.env.get("healthSeconds")
        TIMINGS["harness start total (s)"] = round(time.time() - t0, 2)

    @classmethod
    def tearDownClass(cls) -> None:
        subprocess.run([sys.executable, os.path.join(HERE, "harness.py"), "stop", "--workdir", cls.workdir],
                       capture_output=True, text=True, timeout=60)
        if os.environ.get("OV_SMOKE_KEEP") == "1":
            print(f"\nwork dir kept: {cls.workdir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.workdir, ignore_errors=True)
        print("\nmeasured:\n" + "\n".join(f"  {k}: {v}" for k, v in TIMINGS.items()), file=sys.stderr)

    # -- helpers --------------------------------------------------------------

    def api(self, method: str, path: str, body=None, expect: int = 200):
        status, reply = harness.http_json(method, self.env["baseUrl"] + path, body,
                                          {"X-API-Key": self.env["userKey"]}, timeout=30)
        self.assertEqual(status, expect, f"{method} {path} -> {status}: {reply}")
        self.assertIsInstance(reply, dict)
        self.assertEqual(reply.get("status"), "ok", reply)
        return reply["result"]

    def standin_counts(self) -> dict:
        _, reply = harness.http_json("GET", self.env["standinUrl"] + "/stats", timeout=5)
        return reply["counts"]

    def commit_and_wait(self, session_id: str) -> tuple[dict, float]:
        t0 = time.time()
        commit = self.api("POST", f"/api/v1/sessions/{session_id}/commit", {})
        self.assertEqual(commit["status"], "accepted", commit)
        task_id = commit["task_id"]
        deadline = t0 + TASK_TIMEOUT
        while True:
            task = self.api("GET", f"/api/v1/tasks/{task_id}")
            if task["status"] in ("completed", "failed"):
                break
            self.assertLess(time.time(), deadline, f"task {task_id} still {task['status']} after {TASK_TIMEOUT} s")
            time.sleep(0.5)
        self.assertEqual(task["status"], "completed", json.dumps(task, indent=1))
        return task, time.time() - t0

    # -- tests ----------------------------------------------------------------

    def test_commit_extracts_memories_and_find_and_context(self) -> None:
        uid = self.env["userId"]
        sid = "smoke-" + uuid.uuid4().hex[:8]
        created = self.api("POST", "/api/v1/sessions",
                           {"session_id": sid, "memory_policy": {"working_memory": {"enabled": True}}})
        self.assertEqual(created["session_id"], sid)

        self.api("POST", f"/api/v1/sessions/{sid}/messages/batch", {"messages": [
            {"role": "user", "content": "Hi! I prefer dark mode and tabs over spaces in every editor I use."},
            {"role": "assistant", "content": "Got it, dark mode and tabs."},
            {"role": "user", "content": "For the billing service we decided to use PostgreSQL instead of MongoDB."},
        ]})
        self.api("POST", f"/api/v1/sessions/{sid}/messages", {"role": "assistant", "parts": [
            {"type": "text", "text": "Let me look at the query plan."},
            {"type": "tool", "tool_id": "call-1", "tool_name": "run_sql", "tool_input": {"sql": "EXPLAIN SELECT * FROM invoices"},
             "tool_output": "Seq Scan on invoices (cost=0.00..431.00)", "tool_status": "completed", "duration_ms": 12},
        ]})
        added = self.api("POST", f"/api/v1/sessions/{sid}/messages", {
            "role": "user",
            "content": "Tip: slow queries on the invoices table are fixed by adding an index on customer_id."})
        self.assertEqual(added["message_count"], 5)

        before = self.standin_counts()
        task, seconds = self.commit_and_wait(sid)
        TIMINGS["commit -> task completed (s)"] = round(seconds, 2)
        TIMINGS["task processing_seconds"] = round(task.get("processing_seconds") or 0, 2)
        result = task["result"]
        self.assertGreaterEqual(result["memories_extracted"].get("memory_write", 0), 3, result)
        after = self.standin_counts()
        for kind in ("chat.memory_extraction", "chat.wm_create"):
            self.assertGreater(after.get(kind, 0), before.get(kind, 0), f"no {kind} call: {after}")

        # memory_diff.json: the server returns the file text as a string
        diff_text = self.api("GET", "/api/v1/content/read?uri=" + result["memory_diff_uri"])
        diff = json.loads(diff_text) if isinstance(diff_text, str) else diff_text
        adds = diff["operations"]["adds"]
        types = {a["memory_type"] for a in adds}
        self.assertTrue({"preferences", "events", "entities"} <= types, adds)
        pref = next(a for a in adds if a["memory_type"] == "preferences")
        self.assertTrue(pref["uri"].startswith(f"viking://user/{uid}/memories/preferences/"), pref)
        self.assertIn("dark mode", pref["after"])

        # find with a paraphrase (no shared phrase with the stored sentence)
        query = {"query": "which colour theme does the user like in code editors?",
                 "target_uri": f"viking://user/{uid}/memories", "limit": 5}
        latencies = []
        for _ in range(5):
            t0 = time.time()
            found = self.api("POST", "/api/v1/search/find", query)
            latencies.append((time.time() - t0) * 1000)
        TIMINGS["find latency ms (median of 5)"] = round(statistics.median(latencies), 1)
        TIMINGS["find latency ms (max of 5)"] = round(max(latencies), 1)
        leaves = [m for m in found["memories"] if m.get("level") == 2]
        self.assertTrue(leaves, found)
        self.assertEqual(leaves[0]["uri"], pref["uri"], json.dumps(found["memories"], indent=1))
        self.assertIn("memory_type=preferences", leaves[0].get("tags", []))

        # working-memory summary of the archive
        ctx = self.api("GET", f"/api/v1/sessions/{sid}/context?token_budget=8000")
        overview = ctx.get("latest_archive_overview") or ""
        self.assertTrue(overview.startswith("# Working Memory"), overview[:200])
        for section in ("Session Title", "Current State", "Task & Goals", "Key Facts & Decisions",
                        "Files & Context", "Errors & Corrections", "Open Issues"):
            self.assertIn(f"## {section}", overview)
        self.assertIn("PostgreSQL", overview)
        self.assertIn("run_sql", overview)

        # the archive keeps the raw turns, tool part included
        archive_id = result["archive_uri"].rstrip("/").rsplit("/", 1)[-1]
        archive = self.api("GET", f"/api/v1/sessions/{sid}/archives/{archive_id}")
        part_types = [p.get("type") for m in archive["messages"] for p in m.get("parts", [])]
        self.assertIn("tool", part_types, archive["messages"])

    def test_extraction_disabled_by_memory_policy(self) -> None:
        sid = "smoke-off-" + uuid.uuid4().hex[:8]
        self.api("POST", "/api/v1/sessions", {"session_id": sid, "memory_policy": {
            "self": {"enabled": False}, "peer": {"enabled": False}}})
        self.api("POST", f"/api/v1/sessions/{sid}/messages",
                 {"role": "user", "content": "I prefer green tea over coffee. We decided to meet on Fridays."})
        before = self.standin_counts()
        task, seconds = self.commit_and_wait(sid)
        TIMINGS["commit (extraction + WM off) -> completed (s)"] = round(seconds, 2)
        extracted = task["result"].get("memories_extracted") or {}
        self.assertEqual(sum(extracted.values()), 0, task["result"])
        after = self.standin_counts()
        self.assertEqual(after.get("chat.memory_extraction", 0), before.get("chat.memory_extraction", 0))

    def test_processes_listen_on_loopback_only(self) -> None:
        for key in ("serverPid", "standinPid"):
            addrs = harness.listening_addresses(self.env[key])
            self.assertTrue(addrs, f"{key}: no listening socket found")
            for addr in addrs:
                self.assertTrue(addr.startswith("127.0.0.1:"), f"{key} listens on {addr}")


if __name__ == "__main__":
    unittest.main(verbosity=2)


class StandinAgentEvolutionTest(unittest.TestCase):
    """The stand-in's agent-evolution answers, offline (the real pipeline runs in
    tests/integration/experiences.test.mjs): shaped as OpenViking 0.5.2 parses them and derived
    from the turn's tool calls."""

    TRANSCRIPT = (
        "## Conversation History\n**Session Time:** 2026-12-02 12:25 - 2026-12-02 12:25 (Wednesday)\n\n"
        "[0][user][user]: Please deploy the billing service to staging.\n"
        "[1][assistant][assistant]: Running it.\n"
        "ToolCall: tool_name=exec; status=error; input={'command': 'make deploy'}; output=error: missing kubeconfig; duration_ms=1200\n"
        "ToolCall: tool_name=exec; status=completed; input={'command': 'make deploy'}; output=ok; duration_ms=5300\n"
        "ToolCall: tool_name=web_fetch; status=completed; input={}; output=ok; duration_ms=80\n"
        "Deployed.\n"
    )

    def body(self, system: str, *users: str) -> dict:
        return {"messages": [{"role": "system", "content": system}] + [{"role": "user", "content": u} for u in users]}

    def test_trajectory_and_experience_follow_the_tool_calls(self) -> None:
        import standin
        traj_sys = "You are an extraction agent.\n- sdk.create_trajectories(*, trajectory_name: str, outcome: str)"
        kind, text, _, _ = standin.chat_answer(self.body(traj_sys, self.TRANSCRIPT))
        self.assertEqual(kind, "trajectory_extraction")
        self.assertIn('trajectory_name="""deploy_billing_service"""', text)
        self.assertIn('outcome="""success"""', text)
        self.assertIn("1. Call exec (error)", text)
        self.assertTrue(text.endswith("sdk.commit()"))
        exp_sys = "You are a memory extraction agent. Your job is to distill experience memories from agent execution trajectories."
        kind, text, _, _ = standin.chat_answer(self.body(exp_sys, self.TRANSCRIPT))
        self.assertEqual(kind, "experience_extraction")
        self.assertIn("Call exec then web_fetch in this order", text)
        self.assertIn("NEVER retry exec unchanged", text)
        # no tool calls: nothing to learn
        kind, text, _, _ = standin.chat_answer(self.body(exp_sys, "## Conversation History\n[0][user][user]: Please say hi.\n[1][assistant][assistant]: Hi."))
        self.assertEqual(text, "sdk.commit()")

    def test_patch_merge_writes_the_new_side_of_each_proposal(self) -> None:
        import standin
        system = "You are a memory patch merge agent.\n- sdk.create_experiences(*, experience_name: str, content: str, supersedes: str)"
        patches = ("# Memory File Patches\n\nPatch 1\n  meta: {}\n  content:\n    @@ -0,0 +1,2 @@\n    +## Situation\n    +- deploy\n"
                   "  experience_name:\n    @@ -0,0 +1 @@\n    +deploy_x\n  memory_type:\n    @@ -0,0 +1 @@\n    +experiences\n")
        kind, text, _, _ = standin.chat_answer(self.body(system, patches))
        self.assertEqual(kind, "experience_merge")
        self.assertEqual(text, 'sdk.create_experiences(content="""## Situation\n- deploy""", experience_name="""deploy_x""")\nsdk.commit()')
