import { JetStreamApiError } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { isRacedCreate } from "./streams";

const apiError = (description: string, err_code: number) => new JetStreamApiError({ code: 500, err_code, description });

describe("a stream create worth making again", () => {
  it("is one that lost to another create, or whose store the server could not make", () => {
    expect(isRacedCreate(apiError("subjects overlap with an existing stream", 10065))).toBe(true);
    expect(isRacedCreate(apiError("stream name already in use with a different configuration", 10058))).toBe(true);
    expect(isRacedCreate(apiError("error creating store for stream", 10049))).toBe(true);
  });

  it("is not one refused for what it asks", () => {
    expect(isRacedCreate(apiError("insufficient resources", 10023))).toBe(false);
    expect(isRacedCreate(apiError("replicas > 1 not supported in non-clustered mode", 10074))).toBe(false);
    expect(isRacedCreate(new Error("TIMEOUT"))).toBe(false);
  });
});
