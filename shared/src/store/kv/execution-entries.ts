/** Strings given small numbers, one each, for as long as the table lives. */
class Interned {
  readonly #codes = new Map<string, number>();
  readonly #values: string[] = [];

  /** -1 for a string never interned: no list is kept under it. */
  codeOf(value: string): number {
    return this.#codes.get(value) ?? -1;
  }

  intern(value: string): number {
    let code = this.#codes.get(value);
    if (code === undefined) {
      code = this.#values.push(value) - 1;
      this.#codes.set(value, code);
    }
    return code;
  }

  value(code: number): string {
    return this.#values[code]!;
  }
}

/**
 * The entries of the execution lists, named by handles (small integers) that the lists hold in
 * typed arrays: per execution one string, its sort key, and two numbers, so that a view of a
 * million executions is a few million-slot arrays rather than millions of objects for the
 * collector to mark. Workflow tokens and statuses are interned; a workflow's code outlives its
 * last entry until the view is dropped, one short string per workflow ever listed.
 */
export class ExecutionEntries {
  /** Handle → sort key (`<createdAt>.<id>` tokens); "" while the handle is free. */
  readonly #sortIds: string[] = [];
  #workflows = new Int32Array(1_024);
  #statuses = new Int32Array(1_024);
  readonly #free: number[] = [];
  readonly workflows = new Interned();
  readonly statuses = new Interned();

  readonly sortIdOf = (handle: number): string => this.#sortIds[handle]!;

  add(sortId: string, workflow: number, status: number): number {
    const handle = this.#free.pop() ?? this.#sortIds.length;
    if (handle === this.#sortIds.length) {
      this.#sortIds.push(sortId);
      if (handle === this.#workflows.length) {
        this.#workflows = grown(this.#workflows);
        this.#statuses = grown(this.#statuses);
      }
    } else {
      this.#sortIds[handle] = sortId;
    }
    this.#workflows[handle] = workflow;
    this.#statuses[handle] = status;
    return handle;
  }

  remove(handle: number): void {
    this.#sortIds[handle] = "";
    this.#free.push(handle);
  }

  workflowOf(handle: number): number {
    return this.#workflows[handle]!;
  }

  statusOf(handle: number): number {
    return this.#statuses[handle]!;
  }

  setStatus(handle: number, status: number): void {
    this.#statuses[handle] = status;
  }
}

function grown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
