/**
 * Sockets whose request is being answered (its body was read and a handler runs): a graceful stop
 * lets those finish and closes every other connection (idle, or stalled while sending a request).
 * Weak: a socket that goes away is forgotten with it.
 */
import type { Socket } from 'node:net';

const answering = new WeakMap<Socket, number>();

export function startAnswering(socket: Socket | undefined): void {
  if (socket) answering.set(socket, (answering.get(socket) ?? 0) + 1);
}

export function doneAnswering(socket: Socket | undefined): void {
  if (socket) answering.set(socket, Math.max(0, (answering.get(socket) ?? 0) - 1));
}

export function isAnswering(socket: Socket): boolean {
  return (answering.get(socket) ?? 0) > 0;
}
