import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";

/*
 * Kubernetes' own OpenAPI schemas (kubernetes-models, validated with ajv, no cluster) and KEDA's
 * CRD schema (@kubernetes-models/keda) for the kinds deploy/kubernetes uses.
 */
interface Model {
  validate(): void;
}
type ModelClass = (new (data: object) => Model) & { apiVersion: string; kind: string };

const MODELS = new Map<string, ModelClass>(
  ([Deployment, Service, PodDisruptionBudget, NetworkPolicy, Namespace, ScaledObject] as unknown as ModelClass[]).map(
    (m) => [`${m.apiVersion} ${m.kind}`, m],
  ),
);

interface SchemaError {
  instancePath: string;
  message?: string;
}

function modelOf(doc: { apiVersion?: string; kind?: string }): ModelClass {
  const model = MODELS.get(`${doc.apiVersion} ${doc.kind}`);
  if (!model) throw new Error(`no schema here for ${doc.apiVersion} ${doc.kind}`);
  return model;
}

function errorsOf(model: ModelClass, doc: object): SchemaError[] {
  try {
    new model(doc).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: SchemaError[] }).errors;
    if (!errors) throw err;
    return errors;
  }
}

/** What the schema of the document's kind finds wrong with it, as `path: message`. */
export function schemaErrors(doc: { apiVersion?: string; kind?: string }): string[] {
  return errorsOf(modelOf(doc), doc).map((e) => `${e.instancePath || "/"}: ${e.message ?? "invalid"}`);
}

/**
 * The fields the schema does not know (a misspelt `readinesProbe` is valid to it, as to the API
 * server without strict validation): a known field has a type, so a value of none (a Symbol)
 * fails there; an unknown one is not checked at all.
 */
export function unknownFields(doc: { apiVersion?: string; kind?: string }): string[] {
  const model = modelOf(doc);
  const found: string[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...path, i]));
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      const pointer = `/${at.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
      const probe = structuredClone(doc) as Record<string | number, unknown>;
      let parent = probe;
      for (const p of path) parent = parent[p] as Record<string | number, unknown>;
      parent[key] = Symbol("probe");
      if (errorsOf(model, probe).some((e) => e.instancePath === pointer)) walk(value, at);
      else found.push(pointer);
    }
  };
  walk(doc, []);
  return found;
}
