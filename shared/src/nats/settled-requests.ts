import { RequestOne } from "@nats-io/nats-core/internal";
import { RequestError } from "@nats-io/nats-core";

/**
 * nats.js ends every request, answered or not, with `cancel()`, which rejects the request's promise with a new
 * RequestError: a no-op once the promise has settled, but the error's stack is captured all the same. Every
 * JetStream publish, KV write and direct get is a request, and that capture measured 5 % of the busy CPU of a process
 * running the executor and its clients under load. A request whose answer (or failure) has been given is cancelled
 * with one shared error instead; a request cancelled before its answer still rejects with a fresh "cancelled" error.
 */
const SETTLED = Symbol("settled");
const ALREADY_SETTLED = new RequestError("settled");

type Settling = RequestOne & { [SETTLED]?: true };

const { resolver, cancel } = RequestOne.prototype;
RequestOne.prototype.resolver = function (this: Settling, ...args: Parameters<typeof resolver>) {
  this[SETTLED] = true;
  resolver.apply(this, args);
};
RequestOne.prototype.cancel = function (this: Settling, err?: Error) {
  cancel.call(this, err ?? (this[SETTLED] ? ALREADY_SETTLED : undefined));
};
