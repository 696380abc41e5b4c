import type { Plan } from "@wf/shared/auth";
import { describe, expect, it } from "vitest";
import { McpPlaces, type McpPlace } from "./mcp-places";

function plans(of: Record<string, Plan>): { of: (owner: string) => Promise<Plan | undefined> } {
  return { of: async (owner) => of[owner] };
}

function place(busy: boolean, evicted: string[], name: string): McpPlace & { busy: boolean } {
  return { busy, evict: () => evicted.push(name) };
}

describe("McpPlaces", () => {
  it("gives each plan its share, never more than the ceiling", () => {
    const places = new McpPlaces(20, plans({}));
    expect(["free", "pro", "team", "enterprise", undefined].map((p) => places.share(p as Plan | undefined))).toEqual([
      4, 16, 20, 20, 4,
    ]);
  });

  it("closes the owner's least recently used idle connection, never another owner's or a busy one", async () => {
    const places = new McpPlaces(2, plans({}));
    const evicted: string[] = [];
    const signal = new AbortController().signal;
    const [a1, a2, b1] = [place(false, evicted, "a1"), place(true, evicted, "a2"), place(false, evicted, "b1")];
    await places.take("a", a1, signal);
    await places.take("a", a2, signal);
    await places.take("b", b1, signal);
    await places.take("a", place(false, evicted, "a3"), signal);
    expect(evicted).toEqual(["a1"]);
  });

  it("waits while all the owner's connections are busy, until one is idle; an aborted wait leaves", async () => {
    const places = new McpPlaces(1, plans({}));
    const evicted: string[] = [];
    const held = place(true, evicted, "held");
    await places.take("a", held, new AbortController().signal);
    const cancel = new AbortController();
    const gaveUp = places.take("a", place(false, evicted, "gave-up"), cancel.signal);
    cancel.abort(new Error("cancelled"));
    await expect(gaveUp).rejects.toThrow("cancelled");
    let taken = false;
    const next = places
      .take("a", place(false, evicted, "next"), new AbortController().signal)
      .then(() => (taken = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toBe(false);
    held.busy = false;
    places.idle("a");
    await next;
    expect(evicted).toEqual(["held"]);
  });
});
