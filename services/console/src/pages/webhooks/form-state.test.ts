import { describe, expect, it } from "vitest";
import type { WebhookView } from "../../api/types";
import {
  createBody,
  emptyForm,
  formOf,
  localProblems,
  placeProblems,
  updateBody,
  type WebhookForm,
} from "./form-state";

function view(overrides: Partial<WebhookView> = {}): WebhookView {
  return {
    id: "w1",
    workflowId: "f1",
    name: "hook",
    mode: "hmac",
    apiKeyId: null,
    hasSecret: true,
    variableMapping: null,
    allowedSourceIps: [],
    enabled: true,
    replayProtection: false,
    triggerUrl: "/api/webhooks/w1/trigger",
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}

const edited = (w: WebhookView, patch: Partial<WebhookForm>): WebhookForm => ({ ...formOf(w), ...patch });

describe("the PUT a webhook form sends", () => {
  it("says a change of mode with the key and the secret, as the API infers the mode from them", () => {
    const hmac = view();
    const keyed = view({ mode: "api_key", apiKeyId: "k1", hasSecret: false });
    const open = view({ mode: "open", hasSecret: false });
    expect(updateBody(edited(hmac, { mode: "api_key", apiKeyId: "k2" }), hmac)).toMatchObject({
      apiKeyId: "k2",
      secretKey: null,
    });
    expect(updateBody(edited(keyed, { mode: "hmac", secretKey: "0123456789abcdef" }), keyed)).toMatchObject({
      clearApiKeyId: true,
      secretKey: "0123456789abcdef",
    });
    expect(updateBody(edited(keyed, { mode: "open" }), keyed)).toMatchObject({ clearApiKeyId: true, secretKey: null });
    expect(updateBody(edited(hmac, { mode: "open" }), hmac)).toMatchObject({ secretKey: null });
    expect(updateBody(edited(open, { mode: "hmac", secretKey: "0123456789abcdef" }), open)).toMatchObject({
      secretKey: "0123456789abcdef",
    });
  });

  it("leaves the key and the secret alone when the mode stays and nothing new is typed", () => {
    const hmac = view({ replayProtection: true });
    const body = updateBody(edited(hmac, { name: " renamed " }), hmac);
    expect(body).toEqual({
      name: "renamed",
      variableMapping: null,
      allowedSourceIps: [],
      enabled: true,
      replayProtection: true,
    });
    const keyed = view({ mode: "api_key", apiKeyId: "k1", hasSecret: true });
    expect(updateBody(formOf(keyed), keyed)).not.toHaveProperty("secretKey");
    expect(updateBody(formOf(keyed), keyed)).not.toHaveProperty("apiKeyId");
  });

  it("maps fields by name (null), as listed without blank rows, or not at all ({}); the addresses without blank rows", () => {
    const w = view({ variableMapping: { who: "name" }, allowedSourceIps: ["10.0.0.0/8"] });
    const form = formOf(w);
    expect(form).toMatchObject({ mapFields: true, listed: true });
    form.mapping.push({ id: 900, variable: " ", field: "" });
    form.ips.push({ id: 901, value: "  " });
    expect(updateBody(form, w)).toMatchObject({ variableMapping: { who: "name" }, allowedSourceIps: ["10.0.0.0/8"] });
    expect(updateBody({ ...form, listed: false }, w)).toMatchObject({ variableMapping: null });
    expect(updateBody({ ...form, mapFields: false }, w)).toMatchObject({ variableMapping: {} });
    // And back: each of the API's three cases opens as the form that sends it.
    expect(formOf(view({ variableMapping: null }))).toMatchObject({ mapFields: true, listed: false });
    expect(formOf(view({ variableMapping: {} }))).toMatchObject({ mapFields: false, listed: false });
  });
});

describe("creating", () => {
  it("maps the payload's fields to variables by name unless told otherwise", () => {
    expect(emptyForm()).toMatchObject({ mapFields: true, listed: false });
    expect(createBody(emptyForm()).variableMapping).toBeNull();
  });

  it("sends only the credential of the chosen mode, and replay protection only with HMAC", () => {
    const form: WebhookForm = {
      ...emptyForm(),
      workflowId: "f1",
      name: "n",
      apiKeyId: "k1",
      secretKey: "0123456789abcdef",
      replayProtection: true,
    };
    expect(createBody({ ...form, mode: "hmac" })).toMatchObject({
      secretKey: "0123456789abcdef",
      replayProtection: true,
    });
    expect(createBody({ ...form, mode: "hmac" })).not.toHaveProperty("apiKeyId");
    expect(createBody({ ...form, mode: "api_key" })).toMatchObject({ apiKeyId: "k1", replayProtection: false });
    expect(createBody({ ...form, mode: "api_key" })).not.toHaveProperty("secretKey");
    expect(createBody({ ...form, mode: "open" })).not.toHaveProperty("secretKey");
  });
});

describe("problems", () => {
  it("catches what the API would take as another mode, or a variable mapped twice", () => {
    const form: WebhookForm = {
      ...emptyForm(),
      listed: true,
      mapping: [1, 2].map((id) => ({ id, variable: "who", field: `f${id}` })),
    };
    expect(localProblems(form, null)).toEqual({
      workflowId: expect.any(String),
      name: "must not be empty",
      secretKey: expect.stringContaining("HMAC"),
      "mapping:2": "who is mapped twice",
    });
    expect(localProblems({ ...form, mode: "api_key", mapFields: false, name: "n", workflowId: "f" }, null)).toEqual({
      apiKeyId: expect.any(String),
    });
    // Editing an HMAC webhook: an empty secret keeps the stored one.
    expect(localProblems({ ...formOf(view()), secretKey: "" }, view())).toEqual({});
  });

  it("refuses a mapping that leaves a required variable unset, or names a variable the workflow does not have", () => {
    const variables = {
      who: { type: "string", required: true },
      count: { type: "number", required: true },
      tags: { type: "array", required: true },
      rush: { type: "boolean", required: true, default: false },
    } as const;
    const form: WebhookForm = { ...emptyForm(), workflowId: "f", name: "n", mode: "open" };
    // By name, an array is never taken from the payload; a default stands in for a missing value.
    expect(localProblems(form, null, variables)).toEqual({
      variableMapping: expect.stringMatching(/^tags is required and has no default/),
    });
    expect(localProblems({ ...form, mapFields: false }, null, variables)).toEqual({
      variableMapping: expect.stringMatching(/^who, count and tags are required and have no default/),
    });
    const rows = [
      { id: 1, variable: "who", field: "name" },
      { id: 2, variable: "count", field: "n" },
      { id: 3, variable: "tags", field: "labels" },
    ];
    expect(localProblems({ ...form, listed: true, mapping: rows }, null, variables)).toEqual({});
    expect(
      localProblems(
        { ...form, listed: true, mapping: [...rows, { id: 4, variable: "colour", field: "c" }] },
        null,
        variables,
      ),
    ).toEqual({
      "mapping:4": "the workflow has no variable colour; it has who, count, tags, rush",
    });
    expect(localProblems({ ...form, listed: true, mapping: [] }, null, variables)).toEqual({
      variableMapping: expect.stringContaining("list a payload field"),
    });
    // The workflow's variables not known (yet): nothing is assumed about them.
    expect(localProblems({ ...form, mapFields: false }, null)).toEqual({});
  });

  it("places the service's field problems at the row they name, counting only the addresses sent", () => {
    const form: WebhookForm = {
      ...emptyForm(),
      ips: [
        { id: 10, value: "" },
        { id: 11, value: "bad" },
      ],
      listed: true,
      mapping: [{ id: 20, variable: "who", field: "" }],
    };
    const placed = placeProblems(
      [
        { field: "allowedSourceIps[0]", message: "must be an address" },
        { field: "variableMapping.who", message: "must not be empty" },
        { field: "secretKey", message: "too short" },
        { field: "somethingElse", message: "odd" },
      ],
      form,
    );
    expect(placed.placed).toEqual({
      "ip:11": "must be an address",
      "mapping:20": "must not be empty",
      secretKey: "too short",
    });
    expect(placed.unplaced).toEqual([{ field: "somethingElse", message: "odd" }]);
  });
});
