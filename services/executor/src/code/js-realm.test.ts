import ivm from "isolated-vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactSet } from "./artifacts";
import { makeRealm, stepBounds, stepFunction, stepMaker, type Realm } from "./js-realm";
import { LogLines } from "./output";

const MIB = 1024 * 1024;
const LIMITS = { outputBytes: MIB, artifactFiles: 10, artifactFileBytes: MIB, artifactTotalBytes: 2 * MIB };

/** Every line and file as it crossed into the host, before the host's own limits. */
class Crossed extends LogLines {
  readonly crossed: { chars: number; length: number }[] = [];
  override push(line: string, length = line.length): void {
    this.crossed.push({ chars: line.length, length });
    super.push(line, length);
  }
}

class CrossedFiles extends ArtifactSet {
  readonly crossed: number[] = [];
  override add(path: string, content: Buffer): void {
    this.crossed.push(content.length);
    super.add(path, content);
  }
}

/**
 * What a step sends out of its isolate is bounded inside it: a megabyte log line a thousand times once made the host
 * copy a gigabyte, which took it down with every other tenant's steps in it.
 */
describe("the bounds a JavaScript step's isolate keeps on what leaves it", () => {
  let isolate: ivm.Isolate;
  let realm: Realm;
  beforeAll(async () => {
    isolate = new ivm.Isolate({ memoryLimit: 64 });
    realm = await makeRealm(isolate);
  });
  afterAll(() => isolate.dispose());

  async function run(code: string) {
    const maker = (await realm.context.eval(stepMaker(stepFunction(code)), { reference: true })) as ivm.Reference;
    const sink = { logs: new Crossed(), artifacts: new CrossedFiles(LIMITS) };
    realm.sinks.set(1, sink);
    const [settled] = (await realm.batch.apply(
      undefined,
      [maker.derefInto(), 1, "{}", "null", undefined, stepBounds(LIMITS)],
      { result: { promise: true, copy: true } },
    )) as string[];
    realm.sinks.delete(1);
    return { settled: settled!, ...sink };
  }

  it("cuts each log line before it leaves, the host told its whole length", async () => {
    const r = await run(`const s = "y".repeat(1 << 20); for (let i = 0; i < 50; i++) console.log(s); return 1;`);
    expect(r.settled).toBe("R1");
    expect(r.logs.crossed).toHaveLength(50);
    expect(r.logs.crossed.every((l) => l.chars === 8192 && l.length === 1 << 20)).toBe(true);
    expect(r.logs.kept()[0]).toBe(`${"y".repeat(8192)}[${(1 << 20) - 8192} more characters]`);
  });

  it("refuses an output or an artifact past the step's limits inside the isolate, in the host's words", async () => {
    expect((await run(`return "x".repeat(2_000_000);`)).settled).toBe("Eoutput exceeds 1 MB");
    const files = await run(`
      artifacts.write("a.txt", "x".repeat(1_000_000));
      try { artifacts.write("big.txt", "x".repeat(2_000_000)); } catch (e) { console.log(e.message); }
      artifacts.write("b.txt", new Uint8Array(1_000_000));
      try { artifacts.write("c.txt", "x".repeat(200_000)); } catch (e) { console.log(e.message); }
      return 1;`);
    expect(files.artifacts.crossed).toEqual([1_000_000, 1_000_000]);
    expect(files.logs.kept()).toEqual([
      "artifact big.txt exceeds 1 MB (the limit per file)",
      "artifacts exceed 2 MB in all (the limit per step)",
    ]);
  });
});
