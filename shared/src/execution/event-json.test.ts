import { describe, expect, it } from "vitest";
import { keepJsonText } from "../text/json-texts";
import { eventJson } from "./event-json";

describe("eventJson", () => {
  const event = (data: unknown) => ({ type: "step_completed", executionId: "e1", id: "e1.2", step: "a", data });

  it("writes an output in its data from the text kept for it, after the other fields", () => {
    const output = { rows: [1, 2] };
    keepJsonText(output, '{ "rows": [1, 2] }');
    const json = eventJson(event({ status: "COMPLETED", output, attempts: 1 }));
    expect(json).toBe(
      '{"type":"step_completed","executionId":"e1","id":"e1.2","step":"a","data":{"status":"COMPLETED","attempts":1,"output":{ "rows": [1, 2] }}}',
    );
    expect(JSON.parse(json)).toEqual(event({ status: "COMPLETED", output, attempts: 1 }));
  });

  it("writes an event whose output has no kept text as JSON.stringify does", () => {
    for (const e of [event({ output: { rows: [1] } }), event({ output: 3 }), event(null), { type: "x" }])
      expect(eventJson(e)).toBe(JSON.stringify(e));
  });
});
