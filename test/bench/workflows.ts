/**
 * The benchmark workflows, as YAML. Each step takes the previous step's output through an input
 * template and adds one, so a run is a true chain (no step can start early) and its final output,
 * the number of steps, proves every step ran in order.
 */

export type ChainLanguage = "javascript" | "python";

/** The body of each step of the JavaScript benchmark workflows. */
export const JS_STEP_CODE = "return input.prev + 1";
// WF_INPUT is the step's rendered input as JSON; the last stdout line is the output.
const PY_BODY = 'import json, os; print(json.loads(os.environ["WF_INPUT"])["prev"] + 1)';

function codeStep(
  name: string,
  language: ChainLanguage,
  prevInput: string,
  body = language === "javascript" ? JS_STEP_CODE : PY_BODY,
): string {
  return [
    `  - name: ${name}`,
    `    type: code`,
    `    language: ${language}`,
    `    input: { prev: ${prevInput} }`,
    codeLine(body),
  ].join("\n");
}

/** A step's code as YAML: quoted on one line, or a block of lines. */
function codeLine(body: string): string {
  if (!body.includes("\n")) return `    code: '${body.replaceAll("'", "''")}'`;
  return `    code: |\n${body
    .split("\n")
    .map((line) => `      ${line}`)
    .join("\n")}`;
}

function prevOf(i: number): string {
  return i === 0 ? "0" : `"{{ steps.s${i}.output }}"`;
}

/** `steps` code steps in `language`, each one adding 1 to its predecessor's output. */
export function chainWorkflow(language: ChainLanguage, steps: number): string {
  const body = Array.from({ length: steps }, (_, i) => codeStep(`s${i + 1}`, language, prevOf(i)));
  return `name: bench-chain-${language}-${steps}\nsteps:\n${body.join("\n")}\n`;
}

/** The sustained-throughput JavaScript workflow (three steps, output 3), each step's code `code`. */
export function threeStepWorkflowWith(code: string): string {
  const steps = Array.from({ length: 3 }, (_, i) => codeStep(`s${i + 1}`, "javascript", prevOf(i), code));
  return `name: bench-3-javascript-long\nsteps:\n${steps.join("\n")}\n`;
}

export type ThroughputKind = "javascript" | "transform";

/** The sustained-throughput workflow: three light steps, output 3. */
export function threeStepWorkflow(kind: ThroughputKind): string {
  if (kind === "javascript")
    return chainWorkflow("javascript", 3).replace("bench-chain-javascript-3", "bench-3-javascript");
  const steps = Array.from({ length: 3 }, (_, i) =>
    i === 0
      ? `  - { name: s1, type: transform, output: 1 }`
      : `  - { name: s${i + 1}, type: transform, output: "{{ steps.s${i}.output + 1 }}" }`,
  );
  return `name: bench-3-transform\nsteps:\n${steps.join("\n")}\n`;
}

/** What a naive runner would execute per step: the same body in a fresh interpreter. */
export const NAIVE_SNIPPETS = {
  // argv[1] is the previous output; a fresh `node -e` per step.
  javascript: "const prev = Number(process.argv[1]); console.log(JSON.stringify(prev + 1));",
  python: "import json, sys; print(json.dumps(json.loads(sys.argv[1]) + 1))",
} as const;
