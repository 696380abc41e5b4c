import type { z } from "zod";
import { UsageError } from "./usage";

/** The required flags of a command, or a usage error naming the first one missing. */
export function required<K extends string>(
  command: string,
  values: Partial<Record<K, string>>,
  ...names: K[]
): Record<K, string> {
  for (const name of names) {
    if (values[name] === undefined || values[name] === "")
      throw new UsageError(`wf ${command} needs --${name}\nsee: wf ${command} --help`);
  }
  return values as Record<K, string>;
}

/** A flag whose value is one of an enum's options, or a usage error listing them. */
export function choice<T extends string>(flag: string, value: string, options: z.ZodEnum<Record<T, T>>): T {
  const parsed = options.safeParse(value);
  if (!parsed.success) throw new UsageError(`--${flag} ${value}: use one of ${options.options.join(", ")}`);
  return parsed.data as T;
}

/** `--json`: the record as one JSON document; otherwise the human line. */
export function print(json: boolean, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}
