import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `npm run dev:console` proxies the API to a running service (npm start): WF_CONSOLE_API names it.
const api = process.env.WF_CONSOLE_API ?? "http://127.0.0.1:3000";

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  resolve: {
    // shared/'s workflow validator runs in the browser too; the Node functions it imports have browser twins.
    alias: {
      "node:url": fileURLToPath(new URL("./src/shims/node-url.ts", import.meta.url)),
      "node:net": fileURLToPath(new URL("./src/shims/node-net.ts", import.meta.url)),
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // zod's sources carry comments where the bundler expects pure-call annotations: harmless, and
      // not ours to fix; every `npm start` that builds would print them otherwise.
      onwarn(warning, warn) {
        if (warning.code !== "INVALID_ANNOTATION") warn(warning);
      },
    },
  },
  server: { port: 5173, proxy: { "/api": { target: api, changeOrigin: false } } },
});
