import { NoRespondersError } from "@nats-io/nats-core";
import { describe, expect, it } from "vitest";
import { AlreadyExistsError, CasConflictError, ERROR_CATALOGUE, WfError, type ErrorCode } from "@wf/shared/errors";
import { AnswerError, errorAnswer } from "./errors";

/** A Fastify-style error: a message and a statusCode. */
const framework = (statusCode: number, message: string, Base: ErrorConstructor = Error) =>
  Object.assign(new Base(message), { statusCode });

describe("errorAnswer", () => {
  it("answers every catalogue code with its status and the code beside the message", () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
      expect(errorAnswer(new WfError(code, "it went wrong")), code).toEqual({
        status: ERROR_CATALOGUE[code].status,
        body: { error: "it went wrong", code },
      });
    }
  });

  it("keeps details and an AnswerError's fields, which cannot override error or code", () => {
    expect(
      errorAnswer(new WfError("VALIDATION_FAILED", "bad", [{ in: "body", field: "x", message: "m" }])).body,
    ).toEqual({
      error: "bad",
      code: "VALIDATION_FAILED",
      details: [{ in: "body", field: "x", message: "m" }],
    });
    const limited = new AnswerError("RATE_LIMITED", "slow down", {
      window: "minute",
      limit: 60,
      retryAfterSeconds: 3,
      code: "x",
      error: "y",
    });
    expect(errorAnswer(limited)).toEqual({
      status: 429,
      body: { error: "slow down", code: "RATE_LIMITED", window: "minute", limit: 60, retryAfterSeconds: 3 },
    });
  });

  it("tells the 409s apart", () => {
    expect(
      [new WfError("CONFLICT", "c"), new CasConflictError("k"), new AlreadyExistsError("k")].map((e) => [
        errorAnswer(e).status,
        errorAnswer(e).body.code,
      ]),
    ).toEqual([
      [409, "CONFLICT"],
      [409, "CAS_CONFLICT"],
      [409, "ALREADY_EXISTS"],
    ]);
  });

  it("maps the framework's errors: 413 and 415 to their codes, any other 4xx to VALIDATION_FAILED with its status", () => {
    expect(errorAnswer(framework(413, "Request body is too large"))).toEqual({
      status: 413,
      body: { error: expect.stringContaining("1 MB"), code: "PAYLOAD_TOO_LARGE" },
    });
    expect(errorAnswer(framework(415, "Unsupported Media Type"))).toEqual({
      status: 415,
      body: { error: expect.stringContaining("application/json"), code: "UNSUPPORTED_MEDIA_TYPE" },
    });
    expect(errorAnswer(framework(400, "Request body size did not match Content-Length"))).toEqual({
      status: 400,
      body: {
        error: "Request body size did not match Content-Length",
        code: "VALIDATION_FAILED",
        details: [{ in: "body", field: "", message: "Request body size did not match Content-Length" }],
      },
    });
    expect(errorAnswer(framework(400, "'/%E0' is not a valid url component", URIError)).body.details).toEqual([
      { in: "path", field: "", message: expect.any(String) },
    ]);
    expect(errorAnswer(framework(414, "too long", URIError))).toEqual({
      status: 414,
      body: { error: "too long", code: "VALIDATION_FAILED" },
    });
  });

  it("answers NATS not answering with 503 UNAVAILABLE, also when wrapped", () => {
    const wrapped = new Error("stream lookup failed", { cause: new NoRespondersError("subject") });
    expect(errorAnswer(wrapped)).toEqual({ status: 503, body: { error: expect.any(String), code: "UNAVAILABLE" } });
  });

  it("answers anything else with 500 INTERNAL and nothing of the error", () => {
    for (const err of [new Error("a secret"), "a string", null, framework(503, "a 5xx")]) {
      expect(errorAnswer(err)).toEqual({ status: 500, body: { error: "internal error", code: "INTERNAL" } });
    }
  });
});
