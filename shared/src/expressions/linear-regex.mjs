// JSONata's RegexEngine option, on RE2 (re2js): matching takes time linear in the input, so a
// pattern like /(a+)+$/ cannot backtrack for seconds. Plain JS: the expression thread loads it.
import { RE2JS } from "re2js";

const MAX_PROGRAMS = 256;
/** Compiled patterns by flags and source: templates repeat, and compiling is the costly part. */
const programs = new Map();

/**
 * What JSONata needs of a RegExp: it builds one per regex literal (`new RegexEngine(literal)`,
 * where `literal` is the RegExp its parser made, flag g included), then sets `lastIndex` and
 * calls `exec` as on a global RegExp.
 */
export class LinearRegExp {
  constructor(literal) {
    this.program = compile(literal);
    this.lastIndex = 0;
    this.input = null;
    this.matcher = null;
  }

  exec(input) {
    if (this.lastIndex > input.length) {
      this.lastIndex = 0;
      return null;
    }
    // $match, $replace and $split call exec once per match on the same string: one matcher serves them all.
    if (this.input !== input) {
      this.matcher = this.program.matcher(input);
      this.input = input;
    }
    const m = this.matcher;
    if (!m.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const result = [m.group(0)];
    // RegExp reports a group that took no part in the match as undefined, RE2 as null.
    for (let i = 1; i <= m.groupCount(); i++) result.push(m.group(i) ?? undefined);
    result.index = m.start();
    this.lastIndex = m.end();
    return result;
  }
}

function compile(literal) {
  const key = `${literal.flags}/${literal.source}`;
  let program = programs.get(key);
  if (program === undefined) {
    try {
      // Maps what differs in syntax only (flags, \u escapes, (?<name>) groups) to RE2's.
      program = RE2JS.compile(RE2JS.translateRegExp(literal));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `regular expression /${literal.source}/ cannot run on the linear-time engine (RE2: no backreferences, no lookaround): ${reason}`,
      );
    }
    if (programs.size >= MAX_PROGRAMS) programs.delete(programs.keys().next().value);
    programs.set(key, program);
  }
  return program;
}
