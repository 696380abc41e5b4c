/**
 * Calls that run one at a time per key, in the order they came: one process's writes of one compare-and-set record then
 * never conflict with each other, only with another process's.
 */
export class KeyTurns {
  readonly #last = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const result = (this.#last.get(key) ?? Promise.resolve()).then(fn);
    const done = result.then(
      () => undefined,
      () => undefined,
    );
    this.#last.set(key, done);
    void done.then(() => {
      if (this.#last.get(key) === done) this.#last.delete(key);
    });
    return result;
  }
}
