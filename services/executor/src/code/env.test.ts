import { describe, expect, it } from "vitest";
import { codeStepEnv } from "./env";

describe("codeStepEnv", () => {
  it("builds the step's whole environment from the request alone", () => {
    const env = codeStepEnv(
      {
        language: "bash",
        vars: { s: "x", n: 1, b: false, none: null, list: [1], obj: { a: 1 }, missing: undefined, "bad=name": "v" },
        input: undefined,
        item: { id: 3, name: "n", tags: ["t"], nested: { a: 1 }, empty: null },
        timeoutMs: 1000,
      },
      { home: "/h", artifacts: "/h/artifacts" },
      { PATH: "/bin", LANG: "C.UTF-8" },
    );
    expect(env).toEqual({
      PATH: "/bin",
      LANG: "C.UTF-8",
      HOME: "/h",
      WF_ARTIFACTS_DIR: "/h/artifacts",
      WF_INPUT: "null",
      WF_VAR_s: "x",
      WF_VAR_n: "1",
      WF_VAR_b: "false",
      WF_VAR_none: "",
      WF_VAR_list: "[1]",
      WF_VAR_obj: '{"a":1}',
      WF_ITEM: '{"id":3,"name":"n","tags":["t"],"nested":{"a":1},"empty":null}',
      WF_ITEM_id: "3",
      WF_ITEM_name: "n",
      WF_ITEM_empty: "",
    });
  });
});
