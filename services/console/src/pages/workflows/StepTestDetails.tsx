import { useQuery } from "@tanstack/react-query";
import { fetchStep, keys } from "../executions/queries";

/** What a finished step test also gave beside its output (its cost is shown above it): log lines and files. */
export function StepTestDetails({ executionId, path }: { executionId: string; path: string }) {
  const detail = useQuery({
    queryKey: keys.step(executionId, path),
    queryFn: ({ signal }) => fetchStep(executionId, path, signal),
  });
  if (!detail.data) return detail.isError ? <p className="muted small">Its logs could not be loaded.</p> : null;
  const { logs, artifacts } = detail.data;
  return (
    <>
      {logs.length === 0 ? null : (
        <pre className="logs" tabIndex={0} aria-label={`Logs of ${path}`}>
          {logs.join("\n")}
        </pre>
      )}
      {artifacts.length === 0 ? null : (
        <ul aria-label={`Artifacts of ${path}`}>
          {artifacts.map((a) => (
            <li key={a.id}>
              <a href={a.downloadUrl} download={a.name}>
                {a.path || a.name}
              </a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
