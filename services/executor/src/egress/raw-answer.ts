import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/**
 * Answers a connection the HTTP server no longer (CONNECT) or not yet (over the connection cap)
 * handles, with a one-line text body, and closes it. What the client still sends is read and
 * dropped: a socket that is not read never sees the client's end, and would stay half-open.
 */
export function rawAnswer(socket: Socket, status: number, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.resume();
}
