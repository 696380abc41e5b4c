export { natsServerBin, startNatsServer, serverAtLeast, type NatsServerHandle } from "./nats-server";
export { waitFor } from "./wait-for";
export { startCommandsIn } from "./start-commands";
