import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/wf-error";
import { natsTargetFromEnv } from "./credentials";

describe("NATS credentials from the environment", () => {
  it.each([
    [
      { NATS_URL: "nats://edge:s3cr%40t@nats:4222" },
      { url: "nats://nats:4222", auth: { user: "edge", pass: "s3cr@t" } },
    ],
    [{ NATS_URL: "nats://tok3n@nats:4222" }, { url: "nats://nats:4222", auth: { token: "tok3n" } }],
    [
      { NATS_URL: "nats://nats:4222", NATS_USER: "edge", NATS_PASSWORD: "pw" },
      { url: "nats://nats:4222", auth: { user: "edge", pass: "pw" } },
    ],
    [
      { NATS_URL: "nats://nats:4222", NATS_TOKEN: "tok" },
      { url: "nats://nats:4222", auth: { token: "tok" } },
    ],
    [{ NATS_URL: "nats://nats:4222" }, { url: "nats://nats:4222", auth: {} }],
  ])("%j", (env, target) => {
    expect(natsTargetFromEnv(env)).toEqual(target);
  });

  it("without NATS_URL there is none: the embedded server keeps its own", () => {
    expect(natsTargetFromEnv({})).toBeUndefined();
  });

  it.each([
    [{ NATS_URL: "nats://u:p@nats:4222", NATS_USER: "edge", NATS_PASSWORD: "pw" }, "one way only"],
    [{ NATS_URL: "nats://nats:4222", NATS_TOKEN: "t", NATS_USER: "edge", NATS_PASSWORD: "pw" }, "one or the other"],
    [{ NATS_URL: "nats://nats:4222", NATS_USER: "edge" }, "go together"],
    [{ NATS_USER: "edge", NATS_PASSWORD: "pw" }, "without NATS_URL"],
  ])("refuses %j, saying why", (env, why) => {
    expect(() => natsTargetFromEnv(env)).toThrow(ConfigError);
    expect(() => natsTargetFromEnv(env)).toThrow(why);
  });
});
