import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError } from './errors.js';

/**
 * Large uploads (module archives, configuration slugs) go to a temporary file as they arrive,
 * with the size limit counted on the way, and are parsed from there: a request body is never
 * held in memory chunk by chunk (three concurrent 95 MB uploads used to keep some 600 MB of
 * fragmented buffers). The archive is read back whole only for the one synchronous write that
 * stores it. Files are removed when their upload ends, whichever way; the process's directory
 * goes when the process exits (a shutdown in the middle of an upload included).
 */
export interface SpooledUpload {
  readonly size: number;
  /** A fresh stream of the bytes, for a parser. */
  stream(): Readable;
  /** The bytes in one buffer, for the write that stores them. */
  read(): Promise<Buffer>;
}

/** A body whose declared length is over the limit is refused before a byte of it is read. */
export function refuseDeclaredOversize(headers: IncomingHttpHeaders, maxBytes: number): void {
  const declared = Number(headers['content-length']);
  if (declared > maxBytes) throw new ApiError(413, `the body is larger than ${maxBytes} bytes`, { title: 'payload too large' });
}

let directory: string | undefined;

/** The process's spool directory, if one was made (tests check it is left empty). */
export function spoolDirectoryPath(): string | undefined {
  return directory;
}

function spoolDirectory(): string {
  if (directory === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'understudy-uploads-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    directory = made;
  }
  return directory;
}

/**
 * A body that broke off before its end (the client went away). A 400, not a server fault: no
 * one is left to read the answer, and the log should not call it an internal error.
 */
export class UploadAborted extends Error {
  readonly statusCode = 400;
  constructor() {
    super('the upload was aborted before its end');
  }
}

/**
 * Writes `body` to a new private (0600) file at `path`, refusing with `tooLarge()` as soon as
 * more than `maxBytes` arrived, and with {@link UploadAborted} when the body breaks off; resolves
 * with the size written. The body is read, never destroyed: a refused request is left paused,
 * and the server's early-answer guard closes its connection after the answer
 * (src/server/early-answer.ts). On refusal the file is closed before the promise rejects; the
 * caller removes it.
 */
export function spoolToFile(
  body: Readable,
  path: string,
  maxBytes: number,
  tooLarge: () => Error,
  expect?: ExpectedStart,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const file = createWriteStream(path, { mode: 0o600 });
    let size = 0;
    let head = Buffer.alloc(0);
    let settled = false;
    const stop = (error: Error | null) => {
      if (settled) return;
      settled = true;
      body.off('data', onData).off('end', onEnd).off('error', onBodyError).off('close', onClose);
      if (error === null) {
        file.end(() => resolve(size));
        return;
      }
      body.pause();
      // The file is opened asynchronously: rejecting before it is closed would let the caller
      // remove it before the open creates it, leaving an empty file behind.
      file.once('close', () => reject(error));
      file.destroy();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return stop(tooLarge());
      if (expect && head.length < expect.bytes.length) {
        head = Buffer.concat([head, chunk.subarray(0, expect.bytes.length - head.length)]);
        if (!expect.bytes.subarray(0, head.length).equals(head)) return stop(expect.otherwise());
      }
      if (!file.write(chunk)) {
        body.pause();
        file.once('drain', () => body.resume());
      }
    };
    const onEnd = () => stop(null);
    // A client that goes away mid-body: `close` without `end`.
    const onClose = () => stop(new UploadAborted());
    // A body's error is the connection's (a reset, an abort); the file's is the disk's (a 500).
    const onBodyError = (cause: Error) => stop(Object.assign(new UploadAborted(), { cause }));
    file.once('error', stop);
    body.on('data', onData).once('end', onEnd).once('error', onBodyError).once('close', onClose);
    // A client that went away before the route began to read: its `close` came and went.
    if (body.destroyed) stop(new UploadAborted());
  });
}

/**
 * The bytes a body must start with (a format's magic number): a body that starts otherwise is
 * refused with `otherwise()` as soon as its first bytes arrive, not after the whole of it.
 */
export interface ExpectedStart {
  bytes: Buffer;
  otherwise: () => Error;
}

/** gzip's magic number: every module archive starts with it. */
export const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/**
 * Writes `body` to a temporary file (refusing with `tooLarge()` once more than `maxBytes`
 * arrived, or with `expect.otherwise()` once its first bytes differ from `expect.bytes`, the rest
 * unread), runs `use` on it, and removes the file whatever happens.
 */
export async function withSpooledUpload<T>(
  body: Readable | Buffer,
  maxBytes: number,
  tooLarge: () => Error,
  use: (upload: SpooledUpload) => Promise<T>,
  expect?: ExpectedStart,
): Promise<T> {
  const path = join(spoolDirectory(), randomUUID());
  try {
    const size = await spoolToFile(Buffer.isBuffer(body) ? Readable.from([body]) : body, path, maxBytes, tooLarge, expect);
    return await use({ size, stream: () => createReadStream(path), read: () => readFile(path) });
  } finally {
    await rm(path, { force: true });
  }
}
