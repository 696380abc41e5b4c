/**
 * What each key (a user, an owner) holds open of one of this edge process's bounded resources: at most `perKey` at
 * once; past it `refusal` is thrown, and a place comes free when one of the key's is given back.
 */
export class Places {
  readonly #open = new Map<string, number>();

  constructor(
    private readonly perKey: number,
    private readonly refusal: (open: number, limit: number) => Error,
  ) {}

  /** Takes one of `key`'s places, or throws the refusal; the function returned gives it back (once). */
  take(key: string): () => void {
    const open = this.#open.get(key) ?? 0;
    if (open >= this.perKey) throw this.refusal(open, this.perKey);
    this.#open.set(key, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.#open.get(key)! - 1;
      if (left > 0) this.#open.set(key, left);
      else this.#open.delete(key);
    };
  }
}
