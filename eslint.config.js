import { readdirSync, readFileSync } from "node:fs";
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

const TS_FILES = ["**/*.{ts,tsx,mts}"];
/** Test code: tests, the cross-service tests under test/, and test support (a `testing/` workspace or folder). */
const TEST_FILES = ["**/*.test.{ts,tsx}", "test/**", "testing/**", "**/testing/**"];

/** The root package.json's workspaces, `services/*` spelled out. */
const root = JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8"));
const WORKSPACES = root.workspaces.flatMap((glob) =>
  glob.endsWith("/*")
    ? readdirSync(new URL(glob.slice(0, -1), import.meta.url)).map((dir) => glob.slice(0, -1) + dir)
    : [glob],
);

/** Each workspace's entry points as other packages import them: `@wf/shared/store`, `@wf/testing`. */
const entryPoints = WORKSPACES.flatMap((dir) => {
  const { name, exports = {} } = JSON.parse(readFileSync(new URL(`${dir}/package.json`, import.meta.url), "utf8"));
  return Object.keys(exports).map((subpath) => name + subpath.slice(1));
});

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const ENTRY_MESSAGE = "Import another workspace through an entry point its package.json `exports` declares.";
/**
 * Imports past a workspace's entry points: a subpath its `exports` do not declare, or a relative path into its files.
 */
const deepImports = [
  { regex: `^(?!(?:${entryPoints.map(escape).join("|")})$)@wf/[^/]+/`, message: ENTRY_MESSAGE },
  {
    regex: "^\\.\\.?/(?:.*/)?(?:shared/(?:src|schema)|testing/src|services/[^/]+/src|cli/src)/",
    message: ENTRY_MESSAGE,
  },
];
const testHelpers = {
  group: ["@wf/testing", "@wf/testing/*", "@wf/*/testing"],
  message:
    "Test helpers are for tests: production code never imports them (test support lives in a `testing/` folder).",
};

const SHADOW_MESSAGE =
  "The editor's elements are in `.yaml-editor`'s shadow root: use a locator, or query that shadowRoot in the page.";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      ".data/**",
      ".tmp/**",
      "coverage/**",
      "services/console/dist/**",
      "services/console/.dist-*/**",
      "dist/**",
      ".dist-*/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    // The rules that need types: each file's nearest tsconfig.json gives them.
    files: TS_FILES,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { "import-x": importX },
    settings: {
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx", ".mts"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".mts", ".js", ".mjs", ".json"] })],
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "import-x/no-cycle": "error",
      "no-restricted-imports": ["error", { patterns: [...deepImports, testHelpers] }],
    },
  },
  {
    files: TEST_FILES,
    rules: { "no-restricted-imports": ["error", { patterns: deepImports }] },
  },
  {
    // The YAML editor draws in a shadow root (services/console/src/editor/index.ts): the document's querySelector never
    // finds a CodeMirror element there, so a check for none of them passes without looking. Playwright's locators
    // pierce the root; page code reads it through `.yaml-editor`'s shadowRoot.
    files: ["test/browser/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...["[callee.object.name='document']", "[callee.object.property.name=/^(document|ownerDocument)$/]"].map(
          (on) => ({
            selector: `CallExpression[callee.property.name=/^querySelector(All)?$/]${on}[arguments.0.value=/\\.cm-/]`,
            message: SHADOW_MESSAGE,
          }),
        ),
        ...["Literal[value", "TemplateElement[value.raw"].map((text) => ({
          selector: `${text}=/document\\.querySelector(All)?\\(\\s*["'\\x60][^"'\\x60]*\\.cm-/]`,
          message: SHADOW_MESSAGE,
        })),
      ],
    },
  },
  {
    // The console app runs in the browser.
    files: ["services/console/src/**"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
