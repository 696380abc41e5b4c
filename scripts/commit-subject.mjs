// The commit-msg hook's check (scripts/git-hooks/commit-msg): a subject short enough to scan in
// `git log --oneline`, with the measurements and reasons in the body. Plain JavaScript: it runs
// under whatever node git finds, before any dependency is installed.
import { readFileSync } from "node:fs";

const MAX_SUBJECT = 72;

/** The subject as `git log --oneline` shows it: the first paragraph, its lines joined by spaces. */
function subjectOf(message) {
  const lines = message.split("\n").filter((line) => !line.startsWith("#"));
  const start = lines.findIndex((line) => line.trim() !== "");
  if (start === -1) return "";
  const end = lines.findIndex((line, i) => i > start && line.trim() === "");
  return lines
    .slice(start, end === -1 ? undefined : end)
    .map((line) => line.trim())
    .join(" ");
}

const subject = subjectOf(readFileSync(process.argv[2], "utf8"));
const length = [...subject].length;
if (length > MAX_SUBJECT) {
  process.stderr.write(
    `commit-msg: the subject is ${length} characters; at most ${MAX_SUBJECT} are allowed.\n` +
      `  ${subject}\n` +
      `Write a short imperative subject, a blank line, then the reasons and measurements in the body.\n` +
      `(Your message is kept in .git/COMMIT_EDITMSG.)\n`,
  );
  process.exit(1);
}
