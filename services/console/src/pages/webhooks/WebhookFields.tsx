import { useId } from "react";
import { Link } from "react-router";
import type { ApiKeyView, WebhookMode, WebhookView, WorkflowItem, WorkflowVariable } from "../../api/types";
import type { Problems, WebhookForm } from "./form-state";
import { Field, FieldNote } from "./Field";
import { generateSecret } from "./secret";
import { SourceIpRows } from "./SourceIpRows";
import { VariableFields } from "./VariableFields";

const MODES: { mode: WebhookMode; label: string; hint: string }[] = [
  { mode: "hmac", label: "HMAC signature", hint: "The sender signs each body with a shared secret." },
  {
    mode: "api_key",
    label: "API key",
    hint: "The sender presents one of your API keys with the WEBHOOK_TRIGGER scope.",
  },
  { mode: "open", label: "Open", hint: "No credential: anyone who knows the URL can start the workflow." },
];

const TRIGGER_SCOPE = "WEBHOOK_TRIGGER";

/** A key can be bound while it is neither revoked nor expired. */
const liveKey = (k: ApiKeyView, now: number) => !k.revoked && (k.expiresAt === null || k.expiresAt > now);

/** The fields of a webhook, for creating one (with its workflow) or editing one (`current`). */
export function WebhookFields(props: {
  form: WebhookForm;
  onChange(form: WebhookForm): void;
  problems: Problems;
  current: WebhookView | null;
  workflows: WorkflowItem[];
  keys: ApiKeyView[];
  /** The chosen workflow's variables, once known. */
  variables: Record<string, WorkflowVariable> | undefined;
}) {
  const { form, problems, current } = props;
  const set = (patch: Partial<WebhookForm>) => props.onChange({ ...form, ...patch });
  const now = Date.now();
  const keys = props.keys.filter((k) => liveKey(k, now) || k.id === current?.apiKeyId);
  const writable = props.workflows.filter((w) => w.role !== "viewer");
  const keepsSecret = current?.mode === "hmac";
  const modeGroup = useId();

  return (
    <>
      {current === null ? (
        <Field
          label="Workflow"
          problem={problems.workflowId}
          hint={writable.length === 0 ? "You own or edit no workflow yet." : "A workflow you own or edit."}
        >
          {(control) => (
            <select {...control} value={form.workflowId} onChange={(e) => set({ workflowId: e.target.value })}>
              <option value="">Choose a workflow…</option>
              {writable.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <Field label="Name" problem={problems.name}>
        {(control) => (
          <input
            {...control}
            value={form.name}
            maxLength={200}
            onChange={(e) => set({ name: e.target.value })}
            placeholder="from CI"
          />
        )}
      </Field>

      <fieldset className="field-group">
        <legend>Authentication</legend>
        {MODES.map((m) => (
          <label key={m.mode} className="inline choice">
            <input
              type="radio"
              name={modeGroup}
              value={m.mode}
              checked={form.mode === m.mode}
              onChange={() => set({ mode: m.mode })}
            />
            <span>
              <strong>{m.label}</strong> <span className="muted small">{m.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>

      {form.mode === "api_key" ? (
        <Field
          label="Bound API key"
          problem={problems.apiKeyId}
          hint={
            <>
              Only this key triggers it, and only with the {TRIGGER_SCOPE} scope. <Link to="/keys">Make a key</Link>
            </>
          }
        >
          {(control) => (
            <select {...control} value={form.apiKeyId} onChange={(e) => set({ apiKeyId: e.target.value })}>
              <option value="">Choose a key…</option>
              {keys.map((k) => {
                const scoped = k.scopes.includes(TRIGGER_SCOPE);
                return (
                  <option key={k.id} value={k.id} disabled={!scoped && k.id !== current?.apiKeyId}>
                    {k.name}
                    {scoped ? "" : ` (no ${TRIGGER_SCOPE} scope)`}
                  </option>
                );
              })}
            </select>
          )}
        </Field>
      ) : null}

      {form.mode === "hmac" ? (
        <>
          <Field
            label="Secret"
            problem={problems.secretKey}
            hint="The service keeps it encrypted and never shows it again: give a copy to the sender."
          >
            {(control) => (
              <div className="row wh-nowrap">
                <input
                  {...control}
                  className="mono wh-grow"
                  value={form.secretKey}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => set({ secretKey: e.target.value })}
                  placeholder={keepsSecret ? "empty: keep the current secret" : "at least 16 characters"}
                />
                <button type="button" onClick={() => set({ secretKey: generateSecret() })}>
                  Generate
                </button>
              </div>
            )}
          </Field>
          <label className="inline">
            <input
              type="checkbox"
              checked={form.replayProtection}
              onChange={(e) => set({ replayProtection: e.target.checked })}
            />
            Replay protection (Standard Webhooks headers: webhook-id, webhook-timestamp, webhook-signature)
          </label>
        </>
      ) : null}

      <VariableFields form={form} onChange={set} problems={problems} variables={props.variables} />

      <fieldset className="field-group">
        <legend>Allowed source addresses</legend>
        <SourceIpRows rows={form.ips} problems={problems} onChange={(ips) => set({ ips })} />
        <FieldNote problem={problems.allowedSourceIps} />
      </fieldset>

      <label className="inline">
        <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        Enabled (a disabled webhook answers 409)
      </label>
    </>
  );
}
