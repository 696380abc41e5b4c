import type { Segment } from "./yaml-context";

/** The parts of JSON Schema that the workflow format's schema uses and completion reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  $defs?: Record<string, Schema>;
  /**
   * A condition on the mapping's values, and what holds when it does (`then`) or not (`else`): a code step's `command`
   * only under `language: cli`.
   */
  if?: Schema;
  then?: Schema;
  else?: Schema;
  not?: Schema;
}

export interface KeyOption {
  name: string;
  schema: Schema;
  required: boolean;
}

export interface ValueOption {
  value: string;
  description?: string;
}

/** How a key's value is written: on the next lines as a mapping or a list, or on the key's line. */
export type ValueShape = "mapping" | "list" | "scalar";

/** Walks the workflow JSON Schema along a path read from the YAML being typed. */
export class SchemaNav {
  constructor(private readonly root: Schema) {}

  /** A `$ref` followed to its definition; the referring node's description wins, being the more specific. */
  deref(schema: Schema): Schema {
    let node = schema;
    for (let hops = 0; node.$ref && hops < 16; hops++) {
      const target = this.root.$defs?.[node.$ref.replace("#/$defs/", "")] ?? {};
      node = { ...target, description: node.description ?? target.description };
    }
    return node;
  }

  /**
   * The schemas a value may match: `oneOf` and `anyOf` spread out. Beside `properties` they are
   * constraints (a `wait` has `seconds` or `until`), not alternatives, and are left alone.
   */
  alternatives(schema: Schema): Schema[] {
    const node = this.deref(schema);
    const options = node.properties ? undefined : (node.oneOf ?? node.anyOf);
    return options ? options.flatMap((option) => this.alternatives(option)) : [node];
  }

  /**
   * Whether the mapping's scalar values meet an `if`: each required key written, each constant or
   * enum matched. A value not written yet fails `required`, as in JSON Schema (`language` absent
   * is not `cli`).
   */
  private holds(condition: Schema, values: Record<string, string>): boolean {
    if ((condition.required ?? []).some((key) => values[key] === undefined || values[key] === "")) return false;
    return Object.entries(condition.properties ?? {}).every(([key, prop]) => {
      const value = values[key];
      if (value === undefined || value === "") return true;
      if (prop.const !== undefined) return String(prop.const) === value;
      return prop.enum === undefined || prop.enum.map(String).includes(value);
    });
  }

  /** The branch of a variant's `if` that the values take: what it forbids (`not.required`) and what it requires. */
  branch(variant: Schema, values: Record<string, string>): { forbidden: string[]; required: string[] } {
    if (!variant.if) return { forbidden: [], required: [] };
    const taken = this.holds(variant.if, values) ? variant.then : variant.else;
    return { forbidden: taken?.not?.required ?? [], required: taken?.required ?? [] };
  }

  /** The object schemas a mapping with these scalar values may be: a step's `type` picks its variant. */
  private objectVariants(schema: Schema, values: Record<string, string>): Schema[] {
    const objects = this.alternatives(schema).filter((s) => s.type === "object" || s.properties !== undefined);
    const matching = objects.filter((s) =>
      Object.entries(s.properties ?? {}).every(([key, prop]) => {
        const value = values[key];
        if (value === undefined || value === "") return true;
        if (prop.const !== undefined) return String(prop.const) === value;
        return prop.enum === undefined || prop.enum.map(String).includes(value);
      }),
    );
    // A discriminator that matches nothing (a typo) should not hide every key.
    return matching.length > 0 ? matching : objects;
  }

  private children(schema: Schema, values: Record<string, string>, key: string): Schema[] {
    return this.objectVariants(schema, values).flatMap((s) => {
      const child =
        s.properties?.[key] ?? (typeof s.additionalProperties === "object" ? s.additionalProperties : undefined);
      return child ? [child] : [];
    });
  }

  private items(schema: Schema): Schema[] {
    return this.alternatives(schema).flatMap((s) => (s.items ? [s.items] : []));
  }

  /** The schemas that may describe the node at `path`. */
  resolve(path: readonly Segment[]): Schema[] {
    let nodes: Schema[] = [this.root];
    for (const segment of path)
      nodes = nodes.flatMap((node) =>
        "item" in segment ? this.items(node) : this.children(node, segment.values, segment.key),
      );
    return nodes;
  }

  /**
   * The keys a mapping at `path` may have. While its variant is open (no `type` yet), only the
   * keys every variant has, and the discriminators: what is certain to be valid.
   */
  keys(path: readonly Segment[], values: Record<string, string>): KeyOption[] {
    const found = new Map<string, KeyOption>();
    for (const node of this.resolve(path)) {
      const variants = this.objectVariants(node, values);
      const branches = variants.map((variant) => this.branch(variant, values));
      for (const variant of variants) {
        for (const [name, schema] of Object.entries(variant.properties ?? {})) {
          const everywhere = variants.every((v) => v.properties?.[name] !== undefined);
          if (found.has(name) || !(everywhere || schema.const !== undefined)) continue;
          // A key the values rule out (a Python step's `command`) is not offered: it would be a mistake.
          if (branches.every((b) => b.forbidden.includes(name))) continue;
          const required = variants.every((v, i) => v.required?.includes(name) || branches[i]!.required.includes(name));
          found.set(name, { name, schema, required });
        }
      }
    }
    return [...found.values()];
  }

  /** The values `key` may take at `path`, when the schema lists them (enums, constants, booleans). */
  values(path: readonly Segment[], values: Record<string, string>, key: string): ValueOption[] {
    const found = new Map<string, ValueOption>();
    const add = (value: unknown, description?: string) => {
      const text = String(value);
      if (!found.has(text)) found.set(text, { value: text, ...(description ? { description } : {}) });
    };
    const rest = { ...values };
    delete rest[key];
    for (const node of this.resolve(path)) {
      for (const child of this.children(node, rest, key)) {
        for (const option of this.alternatives(child)) {
          if (option.const !== undefined) add(option.const, option.description);
          for (const value of option.enum ?? []) add(value);
          if (option.type === "boolean") for (const value of [true, false]) add(value);
        }
      }
    }
    return [...found.values()];
  }

  shapeOf(schema: Schema): ValueShape {
    const options = this.alternatives(schema);
    if (options.every((s) => s.type === "array")) return "list";
    if (options.every((s) => s.type === "object" || s.properties !== undefined)) return "mapping";
    return "scalar";
  }

  /** A word or two for the completion list: what kind of value the key takes. */
  describe(schema: Schema): string {
    const shape = this.shapeOf(schema);
    if (shape !== "scalar") return shape;
    const types = [
      ...new Set(
        this.alternatives(schema).flatMap((s) => (s.enum ? ["one of"] : s.type === undefined ? [] : [s.type].flat())),
      ),
    ];
    return types.length === 0 ? "any value" : types.join(" or ");
  }
}
