import type { SecretView } from "../../api/types";
import { ActionsHeader } from "../../ui/ActionsHeader";
import { When } from "../../ui/When";

/** The user's secrets by name, with when each was made and last set; the values are never answered. */
export function SecretTable({
  secrets,
  onReplace,
  onDelete,
}: {
  secrets: SecretView[];
  onReplace(name: string): void;
  onDelete(name: string): void;
}) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Created</th>
            <th>Updated</th>
            <ActionsHeader />
          </tr>
        </thead>
        <tbody>
          {secrets.map((s) => (
            <tr key={s.name}>
              <td>
                <strong className="mono">{s.name}</strong>
                <div className="muted small mono">{`{{ secrets.${s.name} }}`}</div>
              </td>
              <td>
                <When at={s.createdAt} ago />
              </td>
              <td>
                <When at={s.updatedAt} ago />
              </td>
              <td className="num">
                <div className="row end">
                  <button type="button" onClick={() => onReplace(s.name)} aria-label={`Replace value of ${s.name}`}>
                    Replace value
                  </button>
                  <button
                    type="button"
                    className="danger-outline"
                    onClick={() => onDelete(s.name)}
                    aria-label={`Delete ${s.name}`}
                  >
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
