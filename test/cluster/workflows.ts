import type { SideEffects } from "../support/side-effects";

/** The workflows the chaos test starts, stored through the console as a person would. */
export interface ChaosWorkflows {
  /** Python, Ruby, Lua, Bash and JavaScript steps, started over the v1 API. */
  codeMix: string;
  /** A wait, then a step: started by a webhook. */
  waiter: string;
  /** A step that fails its first attempt and is retried after a backoff: started from the console. */
  retrier: string;
  /** A step gated by an approval the test decides: started over the v1 API. */
  approval: string;
  /** Runs after each completed `waiter` (a chained trigger). */
  chained: string;
  webhookPath: string;
  /** Steps that tell the sink each time they run (JavaScript steps have no network). */
  codeSteps: Set<string>;
}

/** A step posting `<execution id>/<step>` to the sink once per run; the answer is the count so far. */
const post = (fx: SideEffects, step: string) => `${fx.url}/$ID/${step}`;

/** What storing the workflows takes of a client (load-client.ts's LoadClient has it). */
interface WorkflowWriter {
  createWorkflow(yaml: string): Promise<string>;
  createWebhook(workflowId: string): Promise<string>;
}

export async function chaosWorkflows(client: WorkflowWriter, fx: SideEffects): Promise<ChaosWorkflows> {
  // With a generous timeout: on two cores shared by three nats-servers and eight service processes, the
  // burst of takeovers after an executor's death queues the sandbox's process starts for tens of seconds.
  const net = `network: { allow: ["${fx.allow}"] }\n    timeout: 120`;
  const input = `input: { id: "{{ execution.id }}" }`;
  /** A Bash step that may reach the sink, its execution's id in `$id`. */
  const bash = (name: string, lines: string[], modifiers = "") => `
  - name: ${name}
    type: code
    language: bash
    ${net}
    ${input}${modifiers}
    code: |
      id=$(echo "$WF_INPUT" | sed 's/.*"id":"\\([^"]*\\)".*/\\1/')
${lines.map((l) => `      ${l}`).join("\n")}`;
  /** A Python step that tells the sink it ran, then prints `output` (a Python expression) as JSON. */
  const python = (name: string, output: string) => `
  - name: ${name}
    type: code
    language: python
    ${net}
    ${input}
    code: |
      import json, os, urllib.request
      url = "${post(fx, name)}".replace("$ID", json.loads(os.environ["WF_INPUT"])["id"])
      urllib.request.urlopen(urllib.request.Request(url, data=b"run", method="POST")).read()
      print(json.dumps(${output}))`;
  const codeMix = await client.createWorkflow(`
name: chaos-code-mix
steps:${python("py", '{"n": 2}')}
  - name: rb
    type: code
    language: ruby
    ${net}
    ${input}
    code: |
      require "json"
      id = JSON.parse(ENV["WF_INPUT"])["id"]
      system("curl", "-sS", "-o", "/dev/null", "-X", "POST", "--data", "run", "${post(fx, "rb")}".sub("$ID", id)) or exit 1
      puts 3
  - name: lua
    type: code
    language: lua
    ${net}
    ${input}
    code: |
      local id = string.match(os.getenv("WF_INPUT"), '"id":"([^"]+)"')
      local url = string.gsub("${post(fx, "lua")}", "%$ID", id)
      assert(os.execute("curl -sS -o /dev/null -X POST --data run " .. url))
      print(4)
  - name: js
    type: code
    language: javascript
    input: { a: "{{ steps.py.output.n }}", b: "{{ steps.rb.output }}", c: "{{ steps.lua.output }}" }
    code: return input.a * input.b * input.c;
  - name: sh
    type: code
    language: bash
    ${net}
    input: { id: "{{ execution.id }}", product: "{{ steps.js.output }}" }
    code: |
      id=$(echo "$WF_INPUT" | sed 's/.*"id":"\\([^"]*\\)".*/\\1/')
      curl -sS -o /dev/null -X POST --data run "${fx.url}/$id/sh"
      echo 24
`);
  const waiter = await client.createWorkflow(`
name: chaos-waiter
steps:
  - { name: pause, type: wait, seconds: 1.5 }${bash("after", [`curl -sS -o /dev/null -X POST --data run "${fx.url}/$id/after"`, "echo done"])}
`);
  const retrier = await client.createWorkflow(`
name: chaos-retrier
steps:${bash("flaky", [`[ "$(curl -sS -X POST --data run "${fx.url}/$id/flaky")" -ge 2 ] || exit 1`, "echo ok"], "\n    retry: { max_attempts: 3, backoff: fixed, initial_delay: 1 }")}
`);
  const approval = await client.createWorkflow(`
name: chaos-approval
steps:${python("propose", '[{"id": 1, "action": "ship"}]')}
  - name: apply
    type: code
    language: javascript
    manual_approval:
      message: "Ship it?"
      timeout: 900
      groups:
        - { name: rows, title: Rows, items: "{{ steps.propose.output }}", columns: [{ key: id, title: ID, type: number }] }
    input: { rows: "{{ approval.rows }}" }
    code: return input.rows.length;
`);
  const chained = await client.createWorkflow(`
name: chaos-chained
triggers:
  - { type: DELAYED_COMPLETION, after: ${waiter}, on: [COMPLETED], delay: 0 }
steps:${bash("follow", [`curl -sS -o /dev/null -X POST --data run "${fx.url}/$id/follow"`, "echo followed"])}
`);
  const webhookPath = await client.createWebhook(waiter);
  return {
    codeMix,
    waiter,
    retrier,
    approval,
    chained,
    webhookPath,
    codeSteps: new Set(["py", "rb", "lua", "sh", "after", "flaky", "propose", "follow"]),
  };
}
