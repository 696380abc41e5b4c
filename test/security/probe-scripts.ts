import type { HostFacts } from "./host-facts";

/** What the probes aim at: the host's facts, and the test's own bait and servers. */
export interface Targets {
  host: HostFacts;
  /** A world-readable file in the host's /tmp holding a secret. */
  canaryPath: string;
  /** A user's email, in plain text in the store's files. */
  email: string;
  /** The test server the operator allows (WF_EGRESS_ALLOW), and one it does not. */
  allowed: { port: number; url: string };
  other: { port: number; url: string };
  /** A file name steps try to create in the host's /tmp, the repository and the data directory. */
  writeName: string;
}

/** The host processes a step must not reach: the service, its nats-server, its sandbox runners. */
export function hostPids(t: Targets): number[] {
  return [t.host.servicePid, t.host.natsPid, ...t.host.runnerPids];
}

const sh = (value: string | number): string => `'${String(value).replaceAll("'", `'\\''`)}'`;

/**
 * Bash: `probe NAME COMMAND...` runs the command and prints one line, `NAME<TAB>exit
 * status<TAB>what it printed` (newlines folded), which `probeLines` reads back.
 */
const BASH_PROBE = `
probe() {
  local name=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\\t%s\\t%s\\n' "$name" "$rc" "$(printf '%s' "$out" | tr '\\n\\t' '  ' | head -c 800)"
}
`;

/** The probe function, the host's facts as variables, and helpers for what bash cannot say in one word. */
function bashPrelude(t: Targets): string {
  const { host } = t;
  return `${BASH_PROBE}
DATA=${sh(host.dataDir)} CANARY=${sh(t.canaryPath)} REPO=${sh(host.repo)} EMAIL=${sh(t.email)} WRITE_NAME=${sh(t.writeName)}
SERVICE_PID=${host.servicePid} NATS_PID=${host.natsPid} RUNNER_PIDS=${sh(host.runnerPids.join(" "))}
NATS_PORT=${host.natsPort} EDGE_PORT=${host.edgePort} OWN_ADDRESS=${sh(host.ownAddress ?? "")}
ALLOWED_URL=${sh(t.allowed.url)} ALLOWED_PORT=${t.allowed.port} OTHER_URL=${sh(t.other.url)}
tcp() { timeout 5 bash -c ': <>"/dev/tcp/$0/$1"' "$1" "$2"; }
write_to() { printf 'written by a step\\n' > "$1"; }
pids() { ls /proc | grep -E '^[0-9]+$'; }
scan_environs() { for f in /proc/[0-9]*/environ; do grep -qa "$1" "$f" 2>/dev/null && echo "found in $f"; done; true; }
through_proxy() { curl -sS -m 10 -x "$HTTP_PROXY" --noproxy '' -w ' HTTP %{http_code}' "$@"; }
fetch() { curl -sS -m 10 -w ' HTTP %{http_code}' "$@"; }
`;
}

export interface Probe {
  rc: number;
  out: string;
}

/** A bash step's probe lines (its output), by name, each output's whitespace folded to single spaces. */
export function probeLines(output: unknown): Record<string, Probe> {
  const seen: Record<string, Probe> = {};
  for (const line of String(output).split("\n")) {
    const [name, rc, out] = line.split("\t");
    if (name && rc !== undefined) seen[name] = { rc: Number(rc), out: (out ?? "").replace(/\s+/g, " ").trim() };
  }
  return seen;
}

export const bash = {
  /** Files: the service's data, the store, the host's /tmp and /root, the repository, /etc/shadow, host sockets. */
  files: (t: Targets) => `${bashPrelude(t)}
probe uid id -u
probe keys cat "$DATA/keys.json"
probe credentials cat "$DATA/nats-credentials.json"
probe store grep -rl "$EMAIL" "$DATA/nats"
probe data_dir ls -A "$DATA"
probe canary cat "$CANARY"
probe tmp ls -A /tmp
probe root ls -A /root
probe top ls -A /
probe repo_package cat "$REPO/package.json"
probe repo_git ls -A "$REPO/.git"
probe shadow cat /etc/shadow
probe home printenv HOME
probe mysql_ls ls -l /run/mysqld/mysqld.sock
probe postgres_ls ls -l /var/run/postgresql/.s.PGSQL.5432
probe mysql curl -sS -m 5 --unix-socket /run/mysqld/mysqld.sock http://localhost/
probe postgres curl -sS -m 5 --unix-socket /var/run/postgresql/.s.PGSQL.5432 http://localhost/
`,

  /** The service's processes, signals, the cgroups. */
  processes: (t: Targets) => `${bashPrelude(t)}
probe pids pids
for pid in $SERVICE_PID $NATS_PID $RUNNER_PIDS; do
  probe "environ $pid" cat "/proc/$pid/environ"
  probe "cmdline $pid" cat "/proc/$pid/cmdline"
  probe "kill -0 $pid" kill -0 "$pid"
done
probe "kill -9 nats" kill -9 "$NATS_PID"
probe "kill -9 service" kill -9 "$SERVICE_PID"
probe "kill -9 -1" kill -9 -1
probe environ_scan scan_environs WF_TEST_CANARY
probe cgroup cat /proc/self/cgroup
probe sys ls /sys
probe pids.max write_to /sys/fs/cgroup/pids/pids.max
probe memory.limit write_to /sys/fs/cgroup/memory/memory.limit_in_bytes
`,

  /** Writing the host's /tmp, the repository, the data directory, the sandbox's own root. */
  writes: (t: Targets) => `${bashPrelude(t)}
probe write_tmp write_to "/tmp/$WRITE_NAME"
probe write_repo write_to "$REPO/$WRITE_NAME"
probe write_data write_to "$DATA/$WRITE_NAME"
probe write_usr write_to "/usr/$WRITE_NAME"
probe write_root write_to "/$WRITE_NAME"
probe tmp_after ls -A /tmp
`,

  /** Without \`network\`: nothing listens in the step's own namespace, nothing is routed. */
  offline: (t: Targets) => `${bashPrelude(t)}
probe proxy_env printenv HTTP_PROXY
probe nats_tcp tcp 127.0.0.1 "$NATS_PORT"
probe edge_tcp tcp 127.0.0.1 "$EDGE_PORT"
probe allowed_tcp tcp 127.0.0.2 "$ALLOWED_PORT"
probe private_tcp tcp 10.255.255.1 80
probe edge_http fetch "http://127.0.0.1:$EDGE_PORT/api/v1/openapi.json"
probe allowed_http fetch "$ALLOWED_URL"
probe dns getent hosts example.com
`,

  /** With \`network: true\`: the proxy applies the operator's policy; raw TCP still goes nowhere. */
  proxied: (t: Targets) => `${bashPrelude(t)}
probe proxy_env printenv HTTP_PROXY
probe edge_direct fetch "http://127.0.0.1:$EDGE_PORT/api/v1/openapi.json"
probe edge_proxy through_proxy "http://127.0.0.1:$EDGE_PORT/api/v1/openapi.json"
probe nats_connect through_proxy -p "http://127.0.0.1:$NATS_PORT/"
probe localhost_proxy through_proxy "http://localhost:$EDGE_PORT/"
probe private fetch http://10.255.255.1/
probe metadata fetch http://169.254.169.254/latest/meta-data/
${t.host.ownAddress ? `probe own_address fetch "http://$OWN_ADDRESS:$EDGE_PORT/"` : ""}
probe other fetch "$OTHER_URL"
probe allowed fetch "$ALLOWED_URL"
probe nats_tcp tcp 127.0.0.1 "$NATS_PORT"
probe edge_tcp tcp 127.0.0.1 "$EDGE_PORT"
probe allowed_tcp tcp 127.0.0.2 "$ALLOWED_PORT"
probe private_tcp tcp 10.255.255.1 80
`,

  /** With an allow list (\`allowed\` or \`other\`): only what it lists and the operator allows. */
  allowList: (t: Targets) => `${bashPrelude(t)}
probe allowed fetch "$ALLOWED_URL"
probe other fetch "$OTHER_URL"
probe edge_proxy through_proxy "http://127.0.0.1:$EDGE_PORT/api/v1/openapi.json"
`,

  /** Links out of the artifacts directory, and files swapped for links while the step ends. */
  artifactLinks: (t: Targets) => `${bashPrelude(t)}
A=$WF_ARTIFACTS_DIR
echo "own artifact" > "$A/own.txt"
ln -s "$CANARY" "$A/canary-link"
ln -s /proc/1/environ "$A/environ-link"
ln -s "/proc/$SERVICE_PID/environ" "$A/service-environ-link"
ln -s /run/wf/lib/main.py "$A/zygote-link"
ln -s ../../../.. "$A/up-link"
ln -s / "$A/root-link"
mkdir "$A/dir" && ln -s "$CANARY" "$A/dir/nested-link"
mkfifo "$A/fifo"
probe hard_passwd ln /etc/passwd "$A/passwd-hard"
probe hard_bash ln /usr/bin/bash "$A/bash-hard"
echo "own outside" > "$HOME/outside.txt"
probe hard_own ln "$HOME/outside.txt" "$A/outside-hard"
i=0
for target in "$CANARY" /proc/1/environ "/proc/$SERVICE_PID/environ" /run/wf/lib/main.py; do
  ( while :; do
      echo "swap-own-$i" > "$A/.file$i" && mv -f "$A/.file$i" "$A/swap$i"
      ln -sfn "$target" "$A/.link$i" && mv -fT "$A/.link$i" "$A/swap$i"
    done ) &
  i=$((i + 1))
done
sleep 0.5
probe swapping pids
`,

  /** The artifacts directory itself replaced by a link. */
  artifactsReplaced: () => `rm -rf "$WF_ARTIFACTS_DIR" && ln -s /run/wf "$WF_ARTIFACTS_DIR" && echo replaced`,

  /** The terminal the service runs in: /dev/tty is the session's controlling terminal. */
  terminal: (marker: string) => `${BASH_PROBE}
say() { printf '\\r\\n%s bash\\r\\n' ${sh(marker)} > /dev/tty; }
probe open_tty bash -c ': <> /dev/tty'
probe write_tty say
`,
};

/** A Python expression for a JSON value (decoded by json, so that true, false and null hold). */
const py = (value: unknown): string => `__import__("json").loads(${JSON.stringify(JSON.stringify(value))})`;

const PY_HELPERS = `
import ctypes, errno, json, os, socket, subprocess, time
def err(e):
    return errno.errorcode.get(e.errno, type(e).__name__) if isinstance(e, OSError) and e.errno else type(e).__name__
def read(path):
    try:
        with open(path, "rb") as f:
            return "read " + f.read(200).decode(errors="replace")
    except OSError as e:
        return err(e)
def write(path):
    try:
        with open(path, "w") as f:
            f.write("written by a step")
        return "written"
    except OSError as e:
        return err(e)
def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as e:
        return err(e)
def connect(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(address)
        return "connected"
    except OSError as e:
        return err(e)
    finally:
        s.close()
def sleeping(*argv):
    # Started, and asleep in its own program: probing a process still being exec'd would be a race.
    child = subprocess.Popen(argv)
    for _ in range(200):
        if read(f"/proc/{child.pid}/stat").rsplit(") ", 1)[-1].startswith("S"):
            break
        time.sleep(0.01)
    return child
def own_pids():
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_DETACH = 0, 16, 17
def in_child(fn, *args):
    # A call that succeeds must not change this process (its user namespace, its tracer), nor
    # keep it from reporting: it is made in a child, which exits with the call's errno.
    pid = os.fork()
    if pid == 0:
        os._exit(0 if fn(*args) >= 0 else ctypes.get_errno())
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "ok" if code == 0 else errno.errorcode.get(code, str(code))
def attach(pid):
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) >= 0:
        # Attached: let go again, so that the process can still be stopped and the step end.
        os.waitpid(pid, 0)
        libc.ptrace(PTRACE_DETACH, pid, None, None)
        return "attached"
    return errno.errorcode[ctypes.get_errno()]
`;

export const python = {
  local: (t: Targets) => `${PY_HELPERS}
F = ${py({ ...t, hostPids: hostPids(t) })}
H = F["host"]
seen = {"uid": os.getuid()}
for name, path in {"keys": H["dataDir"] + "/keys.json", "credentials": H["dataDir"] + "/nats-credentials.json", "canary": F["canaryPath"],
                   "repo_package": H["repo"] + "/package.json", "shadow": "/etc/shadow"}.items():
    seen[name] = read(path)
for name, path in {"data_dir": H["dataDir"], "store": H["dataDir"] + "/nats", "root": "/root", "tmp": "/tmp", "repo_git": H["repo"] + "/.git"}.items():
    seen[name] = listing(path)
child = sleeping("sleep", "30")
seen["pids"] = own_pids()
for pid in F["hostPids"]:
    seen[f"environ {pid}"] = read(f"/proc/{pid}/environ")
    seen[f"cmdline {pid}"] = read(f"/proc/{pid}/cmdline")
    try:
        os.kill(pid, 0)
        seen[f"kill {pid}"] = "signalled"
    except OSError as e:
        seen[f"kill {pid}"] = err(e)
seen["environ_scan"] = [p for p in seen["pids"] if "WF_TEST_CANARY" in read(f"/proc/{p}/environ")]
seen["tcp nats"] = connect(socket.AF_INET, ("127.0.0.1", H["natsPort"]))
seen["tcp edge"] = connect(socket.AF_INET, ("127.0.0.1", H["edgePort"]))
seen["tcp allowed"] = connect(socket.AF_INET, ("127.0.0.2", F["allowed"]["port"]))
seen["tcp private"] = connect(socket.AF_INET, ("10.255.255.1", 80))
seen["mysql"] = connect(socket.AF_UNIX, "/run/mysqld/mysqld.sock")
seen["postgres"] = connect(socket.AF_UNIX, "/var/run/postgresql/.s.PGSQL.5432")
seen["ptrace traceme"] = in_child(libc.ptrace, PTRACE_TRACEME, 0, None, None)
seen["ptrace child"] = attach(child.pid)
seen["ptrace service"] = attach(H["servicePid"])
seen["unshare user"] = in_child(libc.unshare, 0x10000000)
seen["mount"] = in_child(libc.mount, b"none", b"/tmp", b"tmpfs", 0, None)
seen["clone3"] = in_child(libc.syscall, 435, None, 0)
seen["setuid 0"] = in_child(libc.setuid, 0)
seen["cgroup"] = read("/proc/self/cgroup")
seen["pids.max"] = write("/sys/fs/cgroup/pids/pids.max")
seen["write repo"] = write(H["repo"] + "/" + F["writeName"])
seen["write data"] = write(H["dataDir"] + "/" + F["writeName"])
child.kill()
print(json.dumps(seen))
`,

  /** With \`network: true\`: raw TCP, and the proxy asked by hand (urllib would skip it for 127.0.0.1). */
  proxied: (t: Targets) => `${PY_HELPERS}
H = ${py(t.host)}
proxy = os.environ["HTTP_PROXY"].removeprefix("http://").split(":")
def through_proxy(request):
    with socket.create_connection((proxy[0], int(proxy[1])), timeout=10) as s:
        s.sendall(request.encode())
        return s.recv(4096).decode(errors="replace").split("\\r\\n")[0]
seen = {
    "tcp nats": connect(socket.AF_INET, ("127.0.0.1", H["natsPort"])),
    "tcp edge": connect(socket.AF_INET, ("127.0.0.1", H["edgePort"])),
    "tcp private": connect(socket.AF_INET, ("10.255.255.1", 80)),
    "proxy edge": through_proxy(f"GET http://127.0.0.1:{H['edgePort']}/api/v1/openapi.json HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"),
    "proxy nats": through_proxy(f"CONNECT 127.0.0.1:{H['natsPort']} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"),
}
print(json.dumps(seen))
`,

  /** Holds a secret in its environment (its input) and sleeps until the test kills its `sleep`. */
  holder: (marker: string) => `
import json, os, subprocess
subprocess.run(["sleep", ${JSON.stringify(marker)}])
print(json.dumps({"uid": os.getuid(), "held": len(os.environ["WF_VAR_token"])}))
`,

  /**
   * Another owner's step, at the same time, looking for the holder; then it sleeps until the test kills its `sleep`.
   */
  prober: (marker: string) => `${PY_HELPERS}
target = json.loads(os.environ["WF_VAR_target"])
child = sleeping("sleep", "30")
pids = own_pids()
seen = {
    "uid": os.getuid(),
    "pids": pids,
    "environ_scan": [p for p in pids if "WF_VAR_token" in read(f"/proc/{p}/environ")],
    "run dir": os.path.exists(target["runDir"]),
    "code root": os.path.exists(target["codeRoot"]),
    "runs": os.path.exists("/run/wf/runs"),
    "tmp": listing("/tmp"),
    "proc of holder": os.path.exists(f"/proc/{target['pid']}"),
    "environ of holder": read(f"/proc/{target['pid']}/environ"),
    "ptrace traceme": in_child(libc.ptrace, PTRACE_TRACEME, 0, None, None),
    "ptrace holder": attach(target["pid"]),
    "ptrace visible": {str(p): attach(p) for p in pids if p != os.getpid()},
}
try:
    os.kill(target["pid"], 0)
    seen["kill holder"] = "signalled"
except OSError as e:
    seen["kill holder"] = err(e)
child.kill()
print(json.dumps(seen), flush=True)
subprocess.run(["sleep", ${JSON.stringify(marker)}])
`,

  /** Opens the controlling terminal, writes on it, pushes input into it (TIOCSTI) and takes its foreground. */
  terminal: (marker: string) => `
import errno, fcntl, json, os, signal, termios
seen = {}
try:
    fd = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    seen["open"] = errno.errorcode[e.errno]
else:
    seen["open"] = "opened"
    os.write(fd, ${JSON.stringify(`\r\n${marker} python\r\n`)}.encode())
    try:
        for ch in ${JSON.stringify(`# ${marker} injected\n`)}.encode():
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
        seen["tiocsti"] = "injected"
    except OSError as e:
        seen["tiocsti"] = errno.errorcode[e.errno]
    try:
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        os.setpgid(0, 0)
        os.tcsetpgrp(fd, os.getpgrp())
        seen["foreground"] = "taken"
    except OSError as e:
        seen["foreground"] = errno.errorcode[e.errno]
print(json.dumps(seen))
`,
};

export const ruby = {
  local: (t: Targets) => `
require "json"
require "socket"
F = JSON.parse(${JSON.stringify(JSON.stringify({ ...t, hostPids: hostPids(t) }))})
H = F["host"]
def err(e) = e.class.name.split("::").last
def read(path)
  "read " + File.binread(path, 200)
rescue SystemCallError => e
  err(e)
end
def listing(path)
  Dir.children(path).sort
rescue SystemCallError => e
  err(e)
end
def tcp(host, port)
  Socket.tcp(host, port, connect_timeout: 5) { "connected" }
rescue SystemCallError => e
  err(e)
end
def unix(path)
  UNIXSocket.new(path).close
  "connected"
rescue SystemCallError => e
  err(e)
end
seen = { "uid" => Process.uid }
{ "keys" => "#{H["dataDir"]}/keys.json", "credentials" => "#{H["dataDir"]}/nats-credentials.json", "canary" => F["canaryPath"],
  "repo_package" => "#{H["repo"]}/package.json", "shadow" => "/etc/shadow" }.each { |name, path| seen[name] = read(path) }
{ "data_dir" => H["dataDir"], "root" => "/root", "tmp" => "/tmp", "repo_git" => "#{H["repo"]}/.git" }.each { |name, path| seen[name] = listing(path) }
seen["pids"] = Dir.children("/proc").grep(/\\A\\d+\\z/).map(&:to_i).sort
F["hostPids"].each do |pid|
  seen["environ #{pid}"] = read("/proc/#{pid}/environ")
  seen["kill #{pid}"] = begin
    Process.kill(0, pid)
    "signalled"
  rescue SystemCallError => e
    err(e)
  end
end
seen["tcp nats"] = tcp("127.0.0.1", H["natsPort"])
seen["tcp edge"] = tcp("127.0.0.1", H["edgePort"])
seen["tcp private"] = tcp("10.255.255.1", 80)
seen["mysql"] = unix("/run/mysqld/mysqld.sock")
seen["postgres"] = unix("/var/run/postgresql/.s.PGSQL.5432")
puts JSON.generate(seen)
`,

  /** With \`network: true\`: raw TCP, and Net::HTTP through the proxy named explicitly. */
  proxied: (t: Targets) => `
require "json"
require "net/http"
require "socket"
H = JSON.parse(${JSON.stringify(JSON.stringify(t.host))})
def tcp(host, port)
  Socket.tcp(host, port, connect_timeout: 5) { "connected" }
rescue SystemCallError => e
  e.class.name.split("::").last
end
proxy = URI(ENV.fetch("HTTP_PROXY"))
edge = Net::HTTP.new("127.0.0.1", H["edgePort"], proxy.host, proxy.port).start { |http| http.get("/api/v1/openapi.json") }
puts JSON.generate({
  "tcp nats" => tcp("127.0.0.1", H["natsPort"]),
  "tcp edge" => tcp("127.0.0.1", H["edgePort"]),
  "proxy edge" => "#{edge.code} #{edge.body.strip}",
})
`,
};

/** A Lua string literal: for paths and numbers, JSON's escapes (quotes, backslashes) are Lua's. */
const lua = (value: string | number): string => JSON.stringify(String(value));

export const luaScripts = {
  local: (t: Targets) => `
local DATA, CANARY, REPO = ${lua(t.host.dataDir)}, ${lua(t.canaryPath)}, ${lua(t.host.repo)}
local HOST_PIDS = { ${hostPids(t).map(lua).join(", ")} }
local function q(s)
  return '"' .. (tostring(s):gsub('[%c"\\\\]', function(c) return string.format("\\\\u%04x", c:byte()) end)) .. '"'
end
local function read(path)
  local f, e = io.open(path, "rb")
  if not f then return e end
  local s = f:read(200) or ""
  f:close()
  return "read " .. s
end
local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local s = p:read("a")
  p:close()
  return (s:gsub("%s+$", ""):gsub("\\n", " "))
end
local seen = {
  uid = sh("id -u"),
  keys = read(DATA .. "/keys.json"),
  credentials = read(DATA .. "/nats-credentials.json"),
  canary = read(CANARY),
  repo_package = read(REPO .. "/package.json"),
  shadow = read("/etc/shadow"),
  data_dir = sh("ls -A '" .. DATA .. "'"),
  root = sh("ls -A /root"),
  tmp = sh("ls -A /tmp"),
  pids = sh("ls /proc | grep -E '^[0-9]+$'"),
}
for _, pid in ipairs(HOST_PIDS) do
  seen["environ " .. pid] = read("/proc/" .. pid .. "/environ")
end
local keys = {}
for k in pairs(seen) do keys[#keys + 1] = k end
table.sort(keys)
local parts = {}
for _, k in ipairs(keys) do parts[#parts + 1] = q(k) .. ":" .. q(seen[k]) end
print("{" .. table.concat(parts, ",") .. "}")
`,
};

/**
 * JavaScript and TypeScript: isolates with no file system, network or host object; only `artifacts` and `console` reach
 * out.
 */
export const isolate = {
  javascript: `
const seen = {};
for (const name of ["process", "require", "module", "fetch", "XMLHttpRequest", "WebSocket", "Deno", "Bun"]) seen[name] = typeof globalThis[name];
const attempt = (f) => { try { return String(f()); } catch (e) { return e.name + ": " + e.message; } };
seen.functionConstructor = attempt(() => Function("return typeof process")());
seen.callbackConstructor = attempt(() => artifacts.write.constructor("return typeof process")());
try { await import("node:fs"); seen.dynamicImport = "imported"; } catch (e) { seen.dynamicImport = e.name + ": " + e.message; }
for (const path of ["../escape.txt", "/tmp/escape.txt", "a/../../escape.txt"]) seen["write " + path] = attempt(() => artifacts.write(path, "escaped"));
artifacts.write("inside.txt", "written inside");
return seen;
`,
  typescript: `
const seen: Record<string, string> = {};
const names: string[] = ["process", "require", "module", "fetch", "XMLHttpRequest", "WebSocket", "Deno", "Bun"];
for (const name of names) seen[name] = typeof (globalThis as Record<string, unknown>)[name];
const attempt = (f: () => unknown): string => { try { return String(f()); } catch (e) { return (e as Error).name + ": " + (e as Error).message; } };
seen.functionConstructor = attempt(() => Function("return typeof process")());
try { await import("node:child_process"); seen.dynamicImport = "imported"; } catch (e) { seen.dynamicImport = (e as Error).name + ": " + (e as Error).message; }
seen["write ../escape.txt"] = attempt(() => artifacts.write("../escape.txt", "escaped"));
return seen;
`,
};
