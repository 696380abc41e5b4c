#!/usr/bin/env node
// The CLI is TypeScript run from source: tsx compiles it on load. (npm start runs the services from dist/, which it
// builds when stale; a command must not wait for a build. The built CLI is dist/wf.js.)
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
