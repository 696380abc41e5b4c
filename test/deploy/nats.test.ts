import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { renderAuthConf } from "@wf/shared/nats";

describe("deploy/nats", () => {
  it("auth.conf is generated from the permissions of shared/src/nats/permissions.ts, and every server config includes it", async () => {
    expect(await readFile(new URL("../../deploy/nats/auth.conf", import.meta.url), "utf8")).toBe(renderAuthConf("wf"));
    for (const name of ["single", "cluster-1", "cluster-2", "cluster-3"]) {
      const conf = await readFile(new URL(`../../deploy/nats/${name}.conf`, import.meta.url), "utf8");
      expect(conf, name).toMatch(/^include \.\/auth\.conf$/m);
    }
  });
});
