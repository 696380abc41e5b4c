import { Cron } from "croner";

interface CronField {
  label: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const WEEKDAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

const SECOND: CronField = { label: "second", min: 0, max: 59 };
const FIELDS: readonly CronField[] = [
  { label: "minute", min: 0, max: 59 },
  { label: "hour", min: 0, max: 23 },
  { label: "day of month", min: 1, max: 31 },
  { label: "month", min: 1, max: 12, names: MONTHS },
  // 7 is Sunday too, as in Vixie cron.
  { label: "day of week", min: 0, max: 7, names: WEEKDAYS },
];

function fieldValue(text: string, field: CronField): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return undefined;
  return field.label === "month" ? index + 1 : index;
}

function checkItem(item: string, field: CronField): string | undefined {
  const [range = "", step, extra] = item.split("/");
  if (extra !== undefined) return `\`${item}\` has more than one \`/\``;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) {
    return `step \`/${step}\` must be a whole number of at least 1`;
  }
  if (range === "*") return undefined;
  const bounds = range.split("-");
  if (bounds.length > 2) return `\`${range}\` is not a value or a range like 1-5`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = fieldValue(bound, field);
    if (value === undefined) {
      const names = field.names ? ` or a name like ${field.names[0]}` : "";
      return `\`${bound}\` is not a number${names}`;
    }
    if (value < field.min || value > field.max) {
      return `${value} is out of range ${field.min}-${field.max}`;
    }
    values.push(value);
  }
  const [from = 0, to = from] = values;
  if (from > to) return `range ${range} runs backwards; write it as ${to}-${from}`;
  return undefined;
}

/**
 * Why `expr` is not a cron expression, or undefined. Five fields (minute hour day-of-month month
 * day-of-week), or six with a seconds field first.
 */
export function cronProblem(expr: string): string | undefined {
  const parts = expr
    .trim()
    .split(/\s+/)
    .filter((p) => p !== "");
  const fields = parts.length === FIELDS.length + 1 ? [SECOND, ...FIELDS] : FIELDS;
  if (parts.length !== fields.length) {
    return `cron \`${expr}\` has ${parts.length} field${parts.length === 1 ? "" : "s"}; it needs 5: minute hour day-of-month month day-of-week, e.g. "*/15 * * * *" (or 6, with seconds first)`;
  }
  for (const [i, field] of fields.entries()) {
    const part = parts[i] ?? "";
    for (const item of part.split(",")) {
      const problem = checkItem(item, field);
      if (problem !== undefined) return `cron ${field.label} field \`${part}\`: ${problem}`;
    }
  }
  // The scheduler computes fire times with croner: what it cannot read must not pass as valid.
  try {
    schedule(expr, "UTC");
  } catch (err) {
    return `cron \`${expr}\`: ${err instanceof Error ? err.message : String(err)}`;
  }
  return undefined;
}

function schedule(expr: string, timezone: string): Cron {
  // Without a callback croner only computes times: no timer is started.
  return new Cron(expr, { timezone, mode: "5-or-6-parts" });
}

/**
 * The first fire time of a valid cron expression strictly after `after` (epoch ms), in the IANA
 * `timezone` (UTC when unset), or null when it never fires again.
 */
export function nextCronTime(expr: string, timezone: string | undefined, after: number): number | null {
  return (
    schedule(expr, timezone ?? "UTC")
      .nextRun(new Date(after))
      ?.getTime() ?? null
  );
}
