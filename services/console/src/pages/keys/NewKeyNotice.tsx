import type { CreatedApiKey } from "../../api/types";
import { CopyButton } from "../../ui/CopyButton";

/** The key just made, shown this once: only a hash of its secret is kept. */
export function NewKeyNotice({ created, onDone }: { created: CreatedApiKey; onDone(): void }) {
  return (
    <section className="secret-once stack new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new key “{created.name}”</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Only a hash of it is kept; if you lose it, revoke it
        and create another.
      </p>
      <div className="row new-key-value">
        <input
          readOnly
          className="mono"
          aria-label="New API key"
          value={created.key}
          onFocus={(e) => e.target.select()}
        />
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <p className="small">
        Programs send it to the API (<code>/api/v1/…</code>) as <code>Authorization: Bearer &lt;key&gt;</code> or{" "}
        <code>X-API-Key: &lt;key&gt;</code>.
      </p>
      <div className="row end">
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}
