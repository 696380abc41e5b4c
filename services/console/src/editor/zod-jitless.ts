import { config } from "zod";

// zod decides when a schema is built whether it may compile parsers with `new Function`, and tries
// it to find out: the console's CSP forbids eval, so it is told not to try, before the workflow
// schemas are built (this module is the editor's first import), rather than report a violation.
config({ jitless: true });
