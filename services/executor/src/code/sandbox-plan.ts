import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { delimiter, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Controller } from "./cgroup";
import { FIRST_STEP_UID, STEP_SLOTS } from "./host/uid-block";

/** The zygote's own code, read-only in its sandbox. */
export const ZYGOTE_LIB = fileURLToPath(new URL("./zygote/", import.meta.url));

/** One entry of a zygote's file system (see zygote/rootfs.py, which builds it). */
export type PlanEntry =
  | { kind: "ro" | "rw"; source: string; target: string }
  | { kind: "symlink"; target: string; link: string }
  | { kind: "file"; target: string; content: string }
  | { kind: "dir"; target: string }
  | { kind: "tmpfs"; target: string; mode?: string }
  | { kind: "dev" }
  | { kind: "proc" };

/** What every zygote's file system holds, worked out once per runner. */
export interface SandboxView {
  entries: PlanEntry[];
  /** PATH inside: the directories of the host's PATH that exist there, the runtimes' first. */
  path: string;
  /** The host paths a step can read, for the start-up log. */
  readable: string[];
}

/** What the sandbox gives each step of its own, or makes itself: nothing of the host may be bound there. */
const RESERVED = [
  "/step",
  "/tmp",
  "/proc",
  "/dev",
  "/run/wf",
  "/etc/passwd",
  "/etc/group",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/resolv.conf",
];

/** Top-level directories that are, on merged-/usr systems, links into /usr. */
const ROOT_DIRS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
/**
 * What programs read from /etc beyond the generated files: certificates, the linker's cache, alternatives, time zone,
 * service names, the OS's name.
 */
const ETC = [
  "ssl",
  "ca-certificates",
  "pki",
  "crypto-policies",
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "protocols",
  "services",
  "os-release",
];

/**
 * The file system of every sandboxed process: read-only, /usr and the root's links into it, the
 * interpreters' own prefixes wherever they are installed (`runtimes`: each executable found at
 * start-up, its prefix bound when outside /usr, and prefixes an interpreter reported), the paths an
 * operator added, and a minimal generated /etc. Nothing else of the host (docs/sandbox.md#what-a-sandboxed-step-sees).
 */
export function sandboxView(
  runtimes: { executables: string[]; prefixes: string[] },
  extraReadOnly: string[],
  hostPath: string,
): SandboxView {
  const entries: PlanEntry[] = [{ kind: "ro", source: "/usr", target: "/usr" }];
  for (const name of ROOT_DIRS) {
    const path = `/${name}`;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) entries.push({ kind: "symlink", target: path, link: readlinkSync(path) });
    else if (stat?.isDirectory()) entries.push({ kind: "ro", source: path, target: path });
  }
  const found = [...runtimes.prefixes, ...runtimes.executables.map(installPrefix)];
  const prefixes = [...new Set(found.filter((p): p is string => p !== undefined && !covered(p, entries)))];
  for (const path of [...prefixes, ...extraReadOnly]) {
    const reserved = RESERVED.find(
      (r) => path === "/" || path === r || path.startsWith(`${r}/`) || r.startsWith(`${path}/`),
    );
    if (reserved)
      throw new Error(
        `${path} (an interpreter's directory, or in WF_SANDBOX_READ_ONLY) cannot be shown to steps: the sandbox gives each step its own ${reserved}`,
      );
  }
  for (const prefix of [...prefixes, ...extraReadOnly]) entries.push({ kind: "ro", source: prefix, target: prefix });
  entries.push(...generatedEtc());
  for (const name of ETC)
    if (existsSync(`/etc/${name}`)) entries.push({ kind: "ro", source: `/etc/${name}`, target: `/etc/${name}` });
  entries.push({ kind: "dev" }, { kind: "proc" }, { kind: "tmpfs", target: "/tmp" }, { kind: "dir", target: "/step" });
  const readable = entries.flatMap((e) => (e.kind === "ro" ? [e.source] : []));
  const runtimeBins = runtimes.executables.map((r) => dirname(r));
  const path = [...new Set([...runtimeBins, ...hostPath.split(delimiter)])]
    .filter((dir) => dir && covered(dir, entries))
    .join(delimiter);
  return { entries, path, readable };
}

/**
 * A zygote's whole plan: the common view, then /run/wf with its control sockets, code and cgroups,
 * and its steps' directories in memory: what a step writes there is charged to its memory
 * cgroup, so no step can fill the host's disk.
 */
export function zygotePlan(
  view: SandboxView,
  dirs: { ctl: string; cgroups: ReadonlyMap<Controller, string> },
): PlanEntry[] {
  return [
    ...view.entries,
    { kind: "tmpfs", target: "/run/wf" },
    { kind: "tmpfs", target: "/run/wf/runs", mode: "0711" },
    { kind: "rw", source: dirs.ctl, target: "/run/wf/ctl" },
    { kind: "ro", source: ZYGOTE_LIB, target: "/run/wf/lib" },
    ...[...dirs.cgroups].map(([controller, dir]): PlanEntry => ({
      kind: "rw",
      source: dir,
      target: `/run/wf/cgroup/${controller}`,
    })),
  ];
}

/** Where an executable's installation lies: the parent of its bin directory, links resolved. */
function installPrefix(executable: string): string | undefined {
  try {
    return dirname(dirname(realpathSync(executable)));
  } catch {
    return undefined;
  }
}

function covered(path: string, entries: PlanEntry[]): boolean {
  return entries.some(
    (e) => (e.kind === "ro" || e.kind === "symlink") && (path === e.target || path.startsWith(`${e.target}/`)),
  );
}

function generatedEtc(): PlanEntry[] {
  const steps = Array.from({ length: STEP_SLOTS }, (_, i) => FIRST_STEP_UID + i);
  return [
    {
      kind: "file",
      target: "/etc/passwd",
      content: [
        "root:x:0:0:sandbox:/:/usr/sbin/nologin",
        ...steps.map((u) => `wf:x:${u}:${u}:workflow step:/step:/bin/sh`),
        "",
      ].join("\n"),
    },
    { kind: "file", target: "/etc/group", content: ["root:x:0:", ...steps.map((u) => `wf:x:${u}:`), ""].join("\n") },
    { kind: "file", target: "/etc/hosts", content: "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n" },
    {
      kind: "file",
      target: "/etc/nsswitch.conf",
      content:
        "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\nprotocols: files\nservices: files\n",
    },
    // No name server is reachable from a step: names are resolved by the egress proxy.
    {
      kind: "file",
      target: "/etc/resolv.conf",
      content: "# no DNS in the sandbox: connections go through HTTP_PROXY, which resolves names\n",
    },
  ];
}
