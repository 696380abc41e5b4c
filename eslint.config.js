import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", ".data/**", "coverage/**", "services/console/dist/**", "services/console/.dist-*/**", "dist/**", ".dist-*/**"] },
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
    // The console app runs in the browser.
    files: ["services/console/src/**"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
