import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { ENV_SCHEMA } from "@wf/shared/config";
import { ADMIN_USER, executorQueues, passwordVariable, SERVICE_USERS, streamNames } from "@wf/shared/nats";
import { entries } from "../../scripts/build/entries";
import { ROOT } from "./built-process";
import { schemaErrors, unknownFields } from "./kube-schema";

/*
 * deploy/kubernetes, checked without a cluster: every object against its kind's schema (and no
 * field the schema does not know), what kustomize would gather, and what each pod may do.
 */
const DIR = new URL("../../deploy/kubernetes/", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, DIR), "utf8");

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: string };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  restartPolicy?: string;
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
  procMount?: string;
}
interface PodSpec {
  hostUsers?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext;
  initContainers?: Container[];
  containers: Container[];
  volumes?: Record<string, unknown>[];
}
interface Deployment extends Obj {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface NetworkPolicyRule {
  from?: Record<string, unknown>[];
  to?: {
    ipBlock?: { cidr: string; except?: string[] };
    namespaceSelector?: { matchLabels?: Record<string, string> };
  }[];
  ports?: { port: number; protocol?: string }[];
}
interface NetworkPolicy extends Obj {
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes: string[];
    ingress?: NetworkPolicyRule[];
    egress?: NetworkPolicyRule[];
  };
}

const kustomization = parse(read("kustomization.yaml")) as { resources: string[] };
const objects: Obj[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(read(file)).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join("; ")}`);
    return d.toJS() as Obj;
  }),
);
const byKind = <T extends Obj>(kind: string) => objects.filter((o) => o.kind === kind) as T[];
const deployments = byKind<Deployment>("Deployment");
const deployment = (name: string) => deployments.find((d) => d.metadata.name === name)!;
const policies = byKind<NetworkPolicy>("NetworkPolicy");
const built = new Set(entries(ROOT).map((e) => `dist/${e.out}`));
const OPS_PORT = Number(ENV_SCHEMA.WF_OPS_PORT.default);
const env = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
/** Every container of a pod, its native sidecars (init containers that keep running) included. */
const containersOf = (d: Deployment) => [
  ...(d.spec.template.spec.initContainers ?? []),
  ...d.spec.template.spec.containers,
];
const sandbox = deployment("executor").spec.template.spec.initContainers![0]!;

describe("deploy/kubernetes", () => {
  it("kustomization.yaml lists every manifest of the folder, each there (what `kustomize build` gathers)", () => {
    const manifests = readdirSync(DIR).filter(
      (f) => f.endsWith(".yaml") && f !== "kustomization.yaml" && f !== "nats-values.yaml",
    );
    expect([...kustomization.resources].sort()).toEqual(manifests.sort());
    expect(new Set(objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).size).toBe(
      objects.length,
    );
  });

  it("holds only objects valid against their kind's schema, Kubernetes' own or KEDA's, with no field the schema does not know", () => {
    for (const o of objects) {
      const what = `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
      expect(schemaErrors(o), what).toEqual([]);
      expect(unknownFields(o), what).toEqual([]);
    }
  });

  it("puts everything in its own namespaces, and holds no Secret: they are referenced, made by the operator", () => {
    const namespaces = byKind("Namespace").map((n) => n.metadata.name);
    expect(namespaces.sort()).toEqual(["wf", "wf-executor"]);
    for (const o of objects) {
      if (o.kind === "Namespace") continue;
      // The one object in the NATS release's namespace: the policy on its pods.
      const allowed = o.kind === "NetworkPolicy" ? [...namespaces, "nats"] : namespaces;
      expect(allowed, `${o.kind} ${o.metadata.name}`).toContain(o.metadata.namespace);
    }
    expect(byKind("Secret")).toEqual([]);
    expect(byKind("ConfigMap")).toEqual([]);
  });

  it("runs the built entry points of one image with plain node, every setting one the service reads, every secret from a Secret", () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(["approvals", "edge", "executor", "scheduler"]);
    for (const d of deployments) {
      for (const c of containersOf(d)) {
        const what = `${d.metadata.name}/${c.name}`;
        expect(c.image, what).toBe("wf-service:latest");
        // The image's entry point (tini) stays; the arguments pick the service.
        expect(c.command, what).toBeUndefined();
        const args = (c.args ?? []).join(" ");
        expect(built, what).toContain(/\bnode (dist\/\S+)/.exec(args)?.[1]);
        expect(args, what).not.toMatch(/tsx|\.ts\b|--import/);
        for (const e of c.env ?? []) {
          expect(e.name in ENV_SCHEMA, `${what}: ${e.name}`).toBe(true);
          if (/PASSWORD$|_KEY$/.test(e.name)) expect(e.valueFrom?.secretKeyRef, `${what}: ${e.name}`).toBeDefined();
        }
      }
    }
  });

  it("connects every service to the NATS cluster as its own user, keeping every stream on three nodes", () => {
    for (const user of SERVICE_USERS) {
      const c = deployment(user).spec.template.spec.containers[0]!;
      const vars = env(c);
      expect(vars.NATS_URL?.value, user).toBe("nats://nats.nats.svc.cluster.local:4222");
      expect(vars.NATS_USER?.value, user).toBe(user);
      expect(vars.NATS_PASSWORD?.valueFrom?.secretKeyRef, user).toEqual({ name: `wf-${user}`, key: "NATS_PASSWORD" });
      expect(vars.WF_REPLICAS?.value, user).toBe("3");
      expect(vars.WF_NAMESPACE?.value, user).toBe("wf");
      expect(vars.WF_OPS_HOST?.value, user).toBe("0.0.0.0");
    }
    const keys = (user: string) =>
      Object.keys(env(deployment(user).spec.template.spec.containers[0]!))
        .filter((k) => /^WF_.*_KEY$/.test(k))
        .sort();
    expect(keys("edge")).toEqual(["WF_URL_SIGNING_KEY", "WF_WEBHOOK_SECRET_KEY"]);
    expect(keys("executor")).toEqual(["WF_SECRETS_KEY"]);
    expect([keys("approvals"), keys("scheduler")]).toEqual([[], []]);
  });

  it("probes each container's liveness and readiness on its ops listener, and sets its resources", () => {
    for (const d of deployments) {
      for (const c of containersOf(d)) {
        const what = `${d.metadata.name}/${c.name}`;
        const port = Number(env(c).WF_OPS_PORT?.value ?? OPS_PORT);
        const opsPort = c.ports?.find((p) => p.containerPort === port)?.name;
        expect(opsPort, what).toBeDefined();
        expect(env(c).WF_OPS_HOST?.value, what).toBe("0.0.0.0");
        expect(c.readinessProbe?.httpGet, what).toEqual({ path: "/readyz", port: opsPort });
        expect(c.livenessProbe?.httpGet, what).toEqual({ path: "/healthz", port: opsPort });
        for (const resource of ["cpu", "memory"]) {
          expect(c.resources?.requests?.[resource], `${what} requests ${resource}`).toBeDefined();
          expect(c.resources?.limits?.[resource], `${what} limits ${resource}`).toBeDefined();
        }
      }
    }
    // The executor and its sandbox share the pod's network namespace: one port each.
    const ports = containersOf(deployment("executor")).map((c) => Number(env(c).WF_OPS_PORT?.value ?? OPS_PORT));
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("keeps a replica of each service up through voluntary disruptions, and serves the edge", () => {
    for (const d of deployments) {
      const pdb = byKind("PodDisruptionBudget").find((p) => p.metadata.name === d.metadata.name)!;
      expect(pdb.metadata.namespace, d.metadata.name).toBe(d.metadata.namespace);
      expect(pdb.spec, d.metadata.name).toEqual({
        minAvailable: 1,
        selector: { matchLabels: d.spec.selector.matchLabels },
      });
      expect(d.spec.template.metadata.labels, d.metadata.name).toMatchObject(d.spec.selector.matchLabels);
    }
    for (const name of ["edge", "approvals", "scheduler"]) expect(deployment(name).spec.replicas, name).toBe(2);
    const [service] = byKind("Service") as (Obj & {
      spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
    })[];
    expect(service!.spec.selector).toEqual(deployment("edge").spec.selector.matchLabels);
    expect(deployment("edge").spec.template.spec.containers[0]!.ports!.map((p) => p.name)).toContain(
      service!.spec.ports[0]!.targetPort,
    );
  });

  it("scales the executors with KEDA on the backlog of every durable consumer they serve", () => {
    const [scaler] = byKind("ScaledObject") as (Obj & {
      spec: {
        scaleTargetRef: { name: string };
        minReplicaCount: number;
        triggers: { type: string; metadata: Record<string, string> }[];
      };
    })[];
    expect(scaler!.metadata.namespace).toBe(deployment("executor").metadata.namespace);
    expect(scaler!.spec.scaleTargetRef.name).toBe("executor");
    expect(scaler!.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
    const ns = deployment("executor").spec.template.spec.containers[0]!.env!.find(
      (e) => e.name === "WF_NAMESPACE",
    )!.value!;
    const stream = streamNames(ns).cmd;
    // A consumer left out is a backlog the scaler never sees: since starts and resumes have lanes, `executor` alone
    // holds only cancels, fails and debugger commands.
    expect(scaler!.spec.triggers).toMatchObject(
      executorQueues(ns).map((q) => ({ type: "nats-jetstream", metadata: { stream, consumer: q.durable } })),
    );
    // The HPA owns the count: a `replicas` here would be reset by every apply.
    expect(deployment("executor").spec.replicas).toBeUndefined();
  });

  it("holds every pod but the sandbox to the `restricted` Pod Security Standard, and the `wf` namespace enforces it", () => {
    expect(byKind("Namespace").find((n) => n.metadata.name === "wf")!.metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
    });
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      expect([pod.hostNetwork, pod.hostPID, pod.hostIPC], d.metadata.name).toEqual([undefined, undefined, undefined]);
      expect(pod.automountServiceAccountToken, d.metadata.name).toBe(false);
      for (const volume of pod.volumes ?? [])
        expect(Object.keys(volume).sort(), d.metadata.name).toEqual(["emptyDir", "name"]);
      for (const c of containersOf(d)) {
        if (c === sandbox) continue;
        const what = `${d.metadata.name}/${c.name}`;
        const sc = { ...pod.securityContext, ...c.securityContext };
        expect(sc.runAsNonRoot, what).toBe(true);
        expect(sc.runAsUser, what).not.toBe(0);
        expect(sc.allowPrivilegeEscalation, what).toBe(false);
        expect(sc.readOnlyRootFilesystem, what).toBe(true);
        expect(sc.privileged, what).toBeUndefined();
        expect(sc.capabilities, what).toEqual({ drop: ["ALL"] });
        expect(sc.seccompProfile, what).toEqual({ type: "RuntimeDefault" });
      }
    }
  });

  it("gives the sandbox what the compose file's sandbox has, in the pod's own user namespace, and no credential", () => {
    const compose = parse(readFileSync(new URL("../../docker-compose.yml", import.meta.url), "utf8"), {
      merge: true,
    }) as {
      services: Record<
        string,
        { cap_add: string[]; user: string; command: string[]; environment: Record<string, string> }
      >;
    };
    const composed = compose.services["sandbox-1"]!;
    const pod = deployment("executor").spec.template.spec;
    expect(sandbox.restartPolicy).toBe("Always");
    expect(sandbox.args).toEqual(composed.command);
    expect(pod.hostUsers).toBe(false);
    expect(sandbox.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: Number(composed.user.split(":")[1]),
      runAsNonRoot: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"], add: composed.cap_add },
      seccompProfile: { type: "Unconfined" },
      procMount: "Unmasked",
    });
    // Its socket's group is the executor's.
    expect(sandbox.securityContext!.runAsGroup).toBe(pod.containers[0]!.securityContext!.runAsGroup);
    const vars = env(sandbox);
    expect(Object.keys(vars).sort()).toEqual(["WF_OPS_HOST", "WF_OPS_PORT", "WF_SANDBOX_SOCKET", "WF_SANDBOX_UIDS"]);
    expect(vars.WF_SANDBOX_SOCKET!.value).toBe(composed.environment.WF_SANDBOX_SOCKET);
    expect(vars.WF_SANDBOX_SOCKET!.value).toBe(env(pod.containers[0]!).WF_SANDBOX_SOCKET!.value);
    // Steps' uids inside the 65,536 that a pod's user namespace maps.
    const [first, count] = vars.WF_SANDBOX_UIDS!.value!.split(":").map(Number) as [number, number];
    expect(first > 0 && first + count <= 65_536).toBe(true);
    // The socket's volume is the only one the two share.
    const mounts = (c: Container) => new Set((c.volumeMounts ?? []).map((m) => m.name));
    expect([...mounts(sandbox)].filter((v) => mounts(pod.containers[0]!).has(v))).toEqual(["sandbox-socket"]);
  });

  it("denies all traffic unless allowed: NATS only from the service's pods, its routes and monitoring from no pod of ours", () => {
    for (const namespace of ["wf", "wf-executor"]) {
      const deny = policies.find((p) => p.metadata.namespace === namespace && p.metadata.name === "default-deny")!;
      expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
    }
    const nats = policies.find((p) => p.metadata.namespace === "nats")!;
    const rulesFor = (port: number) => nats.spec.ingress!.filter((r) => r.ports?.some((p) => p.port === port));
    const fromNamespaces = (port: number) =>
      rulesFor(port).flatMap((r) =>
        (r.from ?? []).map(
          (f) =>
            (f.namespaceSelector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels?.[
              "kubernetes.io/metadata.name"
            ],
        ),
      );
    expect(fromNamespaces(4222).sort()).toEqual(["wf", "wf-executor"]);
    expect(fromNamespaces(6222)).toEqual([undefined]);
    expect(fromNamespaces(8222)).toEqual(["keda"]);
    // Egress to addresses: the executor's pods alone, and never to the private ranges that hold the cluster.
    const ipRules = policies.flatMap((p) =>
      (p.spec.egress ?? []).flatMap((r) =>
        (r.to ?? []).filter((t) => t.ipBlock).map((t) => ({ policy: p, block: t.ipBlock! })),
      ),
    );
    for (const { policy, block } of ipRules) {
      expect(policy.metadata.namespace).toBe("wf-executor");
      expect(policy.spec.podSelector.matchLabels).toEqual({ "app.kubernetes.io/name": "executor" });
      if (block.cidr === "0.0.0.0/0")
        expect(block.except).toEqual(expect.arrayContaining(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]));
      else expect(block.except, block.cidr).toEqual(expect.arrayContaining(["fc00::/7", "fe80::/10"]));
    }
  });
});

describe("deploy/kubernetes/nats-values.yaml", () => {
  const values = parse(read("nats-values.yaml")) as {
    config: {
      cluster: { enabled: boolean; replicas: number };
      jetstream: {
        enabled: boolean;
        fileStore: { enabled: boolean; pvc: { enabled: boolean } };
        merge: Record<string, string>;
      };
      merge: Record<string, string>;
    };
    container: {
      env: Record<string, { valueFrom: { secretKeyRef: { name: string; key: string } } }>;
      patch: { value: { mountPath: string } }[];
    };
  };

  it("runs three NATS nodes with JetStream on files, syncing every write, with the service's users and their passwords from a Secret", () => {
    expect(values.config.cluster).toEqual({ enabled: true, replicas: 3 });
    expect(values.config.jetstream).toMatchObject({
      enabled: true,
      fileStore: { enabled: true, pvc: { enabled: true } },
      merge: { sync_interval: "always" },
    });
    expect(values.config.merge.max_payload).toBe("<< 8MB >>");
    const passwords = [...SERVICE_USERS, ADMIN_USER].map(passwordVariable).sort();
    expect(Object.keys(values.container.env).sort()).toEqual(passwords);
    for (const variable of passwords)
      expect(values.container.env[variable]!.valueFrom.secretKeyRef).toEqual({
        name: "wf-nats-passwords",
        key: variable,
      });
    // auth.conf's mount is what the chart's /etc/nats-config/nats.conf includes (paths relative to it).
    const mount = values.container.patch[0]!.value.mountPath;
    expect(posix.join("/etc/nats-config", values.config.merge.$include!)).toBe(`${mount}/auth.conf`);
  });
});
