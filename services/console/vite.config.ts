import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `npm run dev:console` proxies the API to a running service (npm start): WF_CONSOLE_API names it.
const api = process.env.WF_CONSOLE_API ?? "http://127.0.0.1:3000";

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  resolve: {
    // shared/'s workflow validator runs in the browser too; its one Node import has a browser twin.
    alias: { "node:url": fileURLToPath(new URL("./src/shims/node-url.ts", import.meta.url)) },
  },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", reportCompressedSize: false, chunkSizeWarningLimit: 1500 },
  server: { port: 5173, proxy: { "/api": { target: api, changeOrigin: false } } },
});
