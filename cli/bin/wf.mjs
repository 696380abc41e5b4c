#!/usr/bin/env node
// The CLI is TypeScript run from source, like the services: tsx compiles it on load.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
