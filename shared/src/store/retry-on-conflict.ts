import { CasConflictError } from "../errors/index";

/** A read-modify-write run again, reading afresh, when a concurrent writer moved first (up to `attempts` in all). */
export async function retryOnConflict<T>(body: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await body();
    } catch (err) {
      if (!(err instanceof CasConflictError) || i >= attempts) throw err;
    }
  }
}
