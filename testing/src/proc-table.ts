import { readdirSync, readFileSync } from "node:fs";

/**
 * One process as its `/proc/<pid>/stat` shows it: its state, its parent, and the fields after "(comm)": state(3)
 * ppid(4) ... minflt(10) cminflt(11) ... utime(14) stime(15) cutime(16) cstime(17), 1-based, so field n is at n - 3.
 */
export interface ProcStat {
  state: string;
  ppid: number;
  fields: string[];
}

/** A process's stat file, or a thread's (`/proc/<pid>/task/<tid>/stat`); null once it has ended. */
export function procStatAt(path: string): (ProcStat & { name: string }) | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    name: text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")),
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    fields,
  };
}

/** Every process /proc lists now, by pid (one that ends while being read is left out); empty without /proc. */
export function procTable(): Map<number, ProcStat> {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return new Map();
  }
  const table = new Map<number, ProcStat>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStatAt(`/proc/${entry}/stat`);
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}

/** Whether `pid` descends from `ancestor` (itself excluded) by the parents in `table`. */
export function descendsFrom(pid: number, ancestor: number, table: ReadonlyMap<number, { ppid: number }>): boolean {
  // Bounded: a pid reused while the table was read could make a loop of parents.
  for (let p = table.get(pid)?.ppid, hops = 0; p !== undefined && p > 1 && hops < 64; p = table.get(p)?.ppid, hops++)
    if (p === ancestor) return true;
  return false;
}

/** A process's command line, its arguments joined by NULs; null once it has ended. */
export function procCmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return null;
  }
}
