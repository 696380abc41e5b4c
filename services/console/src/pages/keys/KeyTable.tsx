import type { ApiKeyView } from "../../api/types";
import { ActionsHeader } from "../../ui/ActionsHeader";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatTime } from "../../ui/format";
import { When } from "../../ui/When";

export function keyStatus(key: ApiKeyView, now: number): "revoked" | "expired" | "active" {
  if (key.revoked) return "revoked";
  return key.expiresAt !== null && key.expiresAt <= now ? "expired" : "active";
}

/** The user's keys, newest first, revoked ones kept; never their secrets. */
export function KeyTable({
  keys,
  now,
  onRevoke,
}: {
  keys: ApiKeyView[];
  now: number;
  onRevoke(key: ApiKeyView): void;
}) {
  return (
    <div className="table-wrap">
      <table className="keys-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Scopes</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
            <th>Status</th>
            <ActionsHeader label="Revoke" />
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const status = keyStatus(key, now);
            return (
              <tr key={key.id}>
                <td>
                  <strong>{key.name}</strong>
                  <div className="muted small mono">{key.id}</div>
                </td>
                <td>
                  <div className="scope-tags">
                    {key.scopes.map((s) => (
                      <code key={s} className="scope-tag">
                        {s}
                      </code>
                    ))}
                  </div>
                </td>
                <td>
                  <When at={key.createdAt} />
                </td>
                <td>
                  <When at={key.lastUsedAt} ago missing="never" />
                </td>
                <td>{key.expiresAt === null ? <span className="muted">never</span> : <When at={key.expiresAt} />}</td>
                <td>
                  <StatusBadge status={status} />
                  {key.revokedAt !== null ? <div className="muted small">{formatTime(key.revokedAt)}</div> : null}
                </td>
                <td className="num">
                  {status === "revoked" ? null : (
                    <button
                      type="button"
                      className="danger-outline"
                      onClick={() => onRevoke(key)}
                      aria-label={`Revoke ${key.name}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
