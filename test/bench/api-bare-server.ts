/**
 * The baseline of the API benchmark: a bare Fastify route, in its own process as the edge is,
 * answering 202 with a start response of the same shape, without authentication, validation,
 * store or NATS.
 */
import Fastify from "fastify";

const app = Fastify({ logger: false });
let n = 0;
app.post("/bare/executions", async (_request, reply) =>
  reply.code(202).send({ executionId: `bare-${++n}`, status: "PENDING", workflowId: "bare", startedAt: Date.now() }),
);
const address = await app.listen({ port: 0, host: "127.0.0.1" });
process.stderr.write(`${JSON.stringify({ msg: "bare listening", address })}\n`);
