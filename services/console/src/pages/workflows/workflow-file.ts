import { isMap, isScalar, parseDocument, stringify, type Scalar } from "yaml";

/** The name a copy of the workflow `name` starts with. */
export const copyName = (name: string): string => `${name} (copy)`;

/** The top-level `name` the text gives, if it gives one as text. */
export function nameIn(yaml: string): string | undefined {
  const value = nameNode(yaml);
  return typeof value?.value === "string" && value.value !== "" ? value.value : undefined;
}

function nameNode(yaml: string): Scalar | undefined {
  const doc = parseDocument(yaml, { prettyErrors: false, logLevel: "silent" });
  if (!isMap(doc.contents)) return undefined;
  const value = doc.contents.items.find((pair) => isScalar(pair.key) && pair.key.value === "name")?.value;
  return isScalar(value) ? value : undefined;
}

/**
 * `yaml` with its top-level `name` set to `name`, every other character as it was (comments, quoting, blank lines);
 * the text unchanged when it has no `name` to set: the editor then says what is missing.
 */
export function withName(yaml: string, name: string): string {
  const value = nameNode(yaml);
  if (!value?.range) return yaml;
  const plain = stringify(name).trimEnd();
  // A name that takes lines of its own in YAML is written on the key's line, double-quoted (JSON's escapes are YAML's).
  const written = plain.includes("\n") ? JSON.stringify(name) : plain;
  const [from, to] = value.range;
  // A block scalar's range takes the line breaks after it: they stay, as the lines after the name.
  const breaks = /\s*$/.exec(yaml.slice(from, to))![0];
  return yaml.slice(0, from) + written + breaks + yaml.slice(to);
}

/** A file name for the workflow `name` (and `version`): what a file system takes anywhere, ending in `.yaml`. */
export function yamlFileName(name: string, version?: number): string {
  const base =
    name
      .normalize("NFKD")
      .replace(/[^\w.-]+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, 100) || "workflow";
  return `${base}${version === undefined ? "" : `-v${version}`}.yaml`;
}

/** Saves `text` as the file `fileName` through the browser's download, nothing sent to the service. */
export function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/yaml" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the blob once the click's task is over.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
