export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** JSON lines on stderr: one record a line, machine-readable, with the service's name. */
export function createLogger(level: LogLevel, base: Record<string, unknown> = {}): Logger {
  const min = RANK[level];
  const write = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    const rec: Record<string, unknown> = { t: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    if (fields?.err instanceof Error) rec.err = { message: fields.err.message, stack: fields.err.stack };
    process.stderr.write(JSON.stringify(rec) + "\n");
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}
