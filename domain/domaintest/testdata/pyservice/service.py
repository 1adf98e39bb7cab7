#!/usr/bin/env python3
"""A Python domain service written from docs/domain-services.md alone.

It is what a user outside CogWorks writes: standard library only, HTTP/1.1
on a unix socket, Extension API 1.4. It validates Python files by
compiling them and runs test_*.py files' top-level test functions with a
tiny runner of its own, in a copy of the repository with the request's
artifacts laid over it. Usage: service.py --socket PATH

It is a sketch of the contract, not a service for untrusted code: it runs
the repository's tests with no sandbox and reads their results from a file
the tests could write (docs/domain-services.md, "Test verdicts", says what
a real service must do instead).
"""

import argparse
import ast
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler

API_VERSION = "1.4.0"
PREFIX = "/extension/v1/"
HANDSHAKE = {
    "name": "pyservice", "service_version": "0.1.0", "api_version": API_VERSION,
    "domain": "software", "capabilities": ["handshake", "validate", "simulate"],
    "artifact_types": [".py"], "interface_types": [], "interface_versions": {},
}

# RUNNER runs in the workspace: it imports each test file and calls its
# test functions, writing one JSON line per test to the file in argv[1].
RUNNER = r"""
import importlib.util, json, sys, time, traceback
out = open(sys.argv[1], "w")
for path in sys.argv[2:]:
    spec = importlib.util.spec_from_file_location(path[:-3].replace("/", "."), path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception:
        out.write(json.dumps({"name": "<import>", "package": path, "passed": False, "output": traceback.format_exc()}) + "\n")
        continue
    for name in sorted(n for n in vars(mod) if n.startswith("test") and callable(getattr(mod, n))):
        start, passed, output = time.time(), True, ""
        try:
            getattr(mod, name)()
        except Exception:
            passed, output = False, traceback.format_exc()
        out.write(json.dumps({"name": name, "package": path, "passed": passed, "output": output,
                              "elapsed_ms": int((time.time() - start) * 1000)}) + "\n")
"""


class Failure(Exception):
    def __init__(self, code, message, recoverable=False):
        super().__init__(message)
        self.code, self.message, self.recoverable = code, message, recoverable


def workspace(req):
    """Copies repository.path (without .git) and lays the artifacts over it."""
    ws = tempfile.mkdtemp(prefix="pyservice-")
    repo = req["repository"].get("path") or ""
    if repo:
        shutil.copytree(repo, ws, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns(".git"))
    for a in req.get("artifacts") or []:
        rel = os.path.normpath(a["path"])
        if rel.startswith("..") or os.path.isabs(rel):
            shutil.rmtree(ws)
            raise Failure("invalid_request", "artifact path %r escapes the repository" % a["path"])
        dst = os.path.join(ws, rel)
        if a.get("delete"):
            if os.path.exists(dst):
                os.remove(dst)
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(a.get("content", ""))
    return ws


def python_files(ws):
    for root, dirs, files in os.walk(ws):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(root, name), ws)


def validate(req):
    ws = workspace(req)
    try:
        diags = []
        for rel in python_files(ws):
            with open(os.path.join(ws, rel)) as f:
                src = f.read()
            try:
                compile(src, rel, "exec")
            except SyntaxError as e:
                diags.append({"artifact": rel, "location": {"file": rel, "line": e.lineno or 1},
                              "severity": "blocking", "category": "compile_error",
                              "message": "%s: %s" % (type(e).__name__, e.msg), "explains": "compile_error"})
        return {"diagnostics": diags}
    finally:
        shutil.rmtree(ws)


def declared(ws, paths):
    """The tests the test files among paths declare, parsed before any runs."""
    out = []
    for rel in paths:
        full = os.path.join(ws, rel)
        if not os.path.basename(rel).startswith("test_") or not rel.endswith(".py") or not os.path.isfile(full):
            continue
        with open(full) as f:
            tree = ast.parse(f.read())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                out.append({"file": rel, "name": node.name, "package": rel,
                            "line": node.lineno, "end_line": node.end_lineno})
    return out


def simulate(req):
    params = req.get("params") or {}
    ws = workspace(req)
    try:
        decls = declared(ws, params.get("paths") or [])
        tests = sorted(p for p in python_files(ws) if os.path.basename(p).startswith("test_"))
        fd, report = tempfile.mkstemp(prefix="pyservice-report-")
        os.close(fd)
        start = time.time()
        proc = subprocess.run([sys.executable, "-c", RUNNER, report] + tests, cwd=ws,
                              capture_output=True, text=True, timeout=120, env={"PYTHONPATH": ws, "PATH": "/usr/bin:/bin"})
        with open(report) as f:
            results = [json.loads(line) for line in f if line.strip()]
        os.remove(report)
        diags = []
        for r in results:
            r.setdefault("elapsed_ms", 0)
            if not r["passed"]:
                diags.append({"artifact": r["package"], "location": {"file": r["package"]}, "severity": "blocking",
                              "category": "test_failure", "message": "%s failed:\n%s" % (r["name"], r["output"])})
        passed = proc.returncode == 0 and bool(results) and all(r["passed"] for r in results)
        if not results:
            diags.append({"artifact": ".", "location": {"file": "."}, "severity": "blocking",
                          "category": "test_failure", "message": "no test ran"})
        return {"passed": passed, "exit_code": 0 if passed else (proc.returncode or 1),
                "output": (proc.stdout + proc.stderr)[-8000:], "duration_ms": int((time.time() - start) * 1000),
                "tests": results, "diagnostics": diags, "declared_tests": decls}
    finally:
        shutil.rmtree(ws)


METHODS = {"handshake": lambda req: HANDSHAKE, "validate": validate, "simulate": simulate}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def address_string(self):
        return "unix"

    def reply(self, status, body):
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its deadline): stay healthy

    def do_GET(self):
        if self.path == PREFIX + "health":
            self.reply(200, {"status": "ok"})
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        method = self.path[len(PREFIX):] if self.path.startswith(PREFIX) else ""
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        req = None
        try:
            req = json.loads(body)
            if not isinstance(req, dict) or not all(k in req for k in ("api_version", "request_id", "method", "repository")):
                raise Failure("invalid_request", "the request envelope lacks a required field")
            if str(req["api_version"]).split(".")[0] != API_VERSION.split(".")[0]:
                raise Failure("api_version_mismatch", "this service speaks %s, not %s" % (API_VERSION, req["api_version"]))
            if method not in METHODS:
                raise Failure("unsupported_method", "method %r is not supported" % method)
            resp = {"request_id": req["request_id"], "status": "ok", "result": METHODS[method](req)}
        except ValueError as e:
            resp = {"request_id": "", "status": "error", "error": {"code": "invalid_request", "message": str(e), "recoverable": False}}
        except Failure as e:
            resp = {"request_id": req.get("request_id", "") if isinstance(req, dict) else "", "status": "error",
                    "error": {"code": e.code, "message": e.message, "recoverable": e.recoverable}}
        except Exception as e:  # a bug of this service, not of the request
            resp = {"request_id": req.get("request_id", "") if isinstance(req, dict) else "", "status": "error",
                    "error": {"code": "internal_error", "message": repr(e), "recoverable": True}}
        self.reply(200, resp)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    args = ap.parse_args()
    if os.path.exists(args.socket):
        os.remove(args.socket)
    with Server(args.socket, Handler) as srv:
        print("listening", flush=True)
        srv.serve_forever()


if __name__ == "__main__":
    main()
