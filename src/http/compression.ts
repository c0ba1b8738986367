import { promisify } from "node:util";
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
} from "node:zlib";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { crc32 } from "../shared/crc32.js";
import { type RequestHead, rememberedPerValue, weightedMembers } from "./header-values.js";

/** A content coding both sides may use, best first. */
export type Encoding = "br" | "gzip";

// Smaller answers go out as they are: compressing them saves less than it costs.
export const compressThreshold = 1024;
// Quality 4 compresses a 23 KB answer about 8:1 in well under a millisecond.
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * Compresses every answer worth it (pages, docs) for clients that ask, through @fastify/compress;
 * answers that set Content-Encoding themselves (the explorer's files, compressed once and kept)
 * are passed on untouched. Request bodies are never decompressed: a small gzip body could expand
 * past the body limit's intent. The API route opts out and compresses its own answers
 * (`compressAnswer`): most of its answers are cache hits compressed once and stored, and the
 * plugin's two hooks ran on each of them for nothing.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    globalDecompression: false,
    encodings: ["br", "gzip"],
    threshold: compressThreshold,
    brotliOptions,
  });
}

// Up to this size compressing on the event loop costs less than a trip through the thread pool
// (the threshold @fastify/compress chooses on two cores).
const syncLimit = 8192;

/**
 * The coding in which to send `body` to `request`, if any: one the client accepts, and a body
 * large enough to be worth it (the plugin's threshold).
 */
export function codingFor(request: RequestHead, body: string | Buffer): Encoding | undefined {
  if (body.length < compressThreshold && Buffer.byteLength(body) < compressThreshold) return undefined;
  return negotiateEncoding(request);
}

/** Compresses an answer as @fastify/compress would: on the loop when small, else in the thread pool. */
export function compressAnswer(
  body: string | Buffer,
  encoding: Encoding,
  done: (error: Error | null, compressed: Buffer) => void,
): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  if (bytes.byteLength > syncLimit) {
    if (encoding === "br") brotliCompress(bytes, brotliOptions, done);
    else gzip(bytes, done);
    return;
  }
  let compressed: Buffer;
  try {
    compressed = encoding === "br" ? brotliCompressSync(bytes, brotliOptions) : gzipSync(bytes);
  } catch (error) {
    done(error as Error, bytes);
    return;
  }
  done(null, compressed);
}

/** The coding to answer in, from Accept-Encoding (RFC 9110 §12.5.3): brotli before gzip, q=0 refuses. */
export function negotiateEncoding(request: RequestHead): Encoding | undefined {
  const header = request.headers["accept-encoding"];
  return header ? encodingAccepted(header) : undefined;
}

const encodingAccepted = rememberedPerValue((header: string): Encoding | undefined => {
  const weights = new Map<string, number>();
  for (const { name, q } of weightedMembers(header)) weights.set(name, q);
  const any = weights.get("*") ?? 0;
  const br = weights.get("br") ?? any;
  const gzip = weights.get("gzip") ?? weights.get("x-gzip") ?? any;
  if (br > 0 && br >= gzip) return "br";
  return gzip > 0 ? "gzip" : undefined;
});

const storedCompressors: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 6: the 5 MB explorer bundle in a fraction of a second, once, off the event loop.
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

/**
 * A body that does not change while the process runs (a docs asset, the field reference), compressed
 * once per content coding, on the first request that asks for it. Sent through @fastify/compress, the
 * 170 KB reference cost 2 ms of CPU per request in either coding: a public page anyone could ask for
 * again and again.
 */
export class StoredBody {
  private readonly encoded: Partial<Record<Encoding, Promise<Buffer>>> = {};

  constructor(readonly body: Buffer) {}

  /** Sends the body in the best coding `request` accepts; the plugin passes it on as it is. */
  async send(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    reply.header("vary", "accept-encoding");
    const encoding = this.body.byteLength > compressThreshold ? negotiateEncoding(request) : undefined;
    if (!encoding) return reply.send(this.body);
    this.encoded[encoding] ??= storedCompressors[encoding](this.body);
    return reply.header("content-encoding", encoding).send(await this.encoded[encoding]);
  }
}

/**
 * A cached answer's head (`{"data":…`) compressed once, open-ended, so each request appends its own
 * tail (the `extensions` with this caller's budget) without compressing the head again. The head is
 * compressed and flushed to a byte boundary; the tail goes in as an uncompressed block (a deflate
 * stored block for gzip, an uncompressed meta-block for brotli), then the stream is closed. The
 * result is one ordinary gzip member or brotli stream that every client decodes.
 */
export interface OpenStream {
  encoding: Encoding;
  /** Compressed head, flushed to a byte boundary; for gzip it starts with the gzip header. */
  prefix: Buffer;
  /** CRC-32 of the uncompressed head (gzip only). */
  crc: number;
  /** Uncompressed length of the head. */
  length: number;
}

// A stored block or a 4-nibble meta-block holds at most this many bytes; a tail is ~200.
const maxTailBytes = 65_535;

/** Compresses `head` and flushes, leaving the stream open for `closingBytes`. */
export function openStream(head: Buffer, encoding: Encoding): Promise<OpenStream> {
  const stream =
    encoding === "gzip"
      ? createGzip({ level: 6 })
      : createBrotliCompress({
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 5,
            [constants.BROTLI_PARAM_SIZE_HINT]: head.byteLength,
          },
        });
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    stream.once("error", reject);
    stream.write(head);
    const kind = encoding === "gzip" ? constants.Z_SYNC_FLUSH : constants.BROTLI_OPERATION_FLUSH;
    stream.flush(kind, () => {
      // The flushed output is complete once the callback runs; the stream is then abandoned.
      stream.removeAllListeners("data");
      stream.destroy();
      resolve({
        encoding,
        prefix: Buffer.concat(chunks),
        crc: encoding === "gzip" ? crc32(head, 0) : 0,
        length: head.byteLength,
      });
    });
  });
}

/**
 * What follows the open head to complete the compressed answer: `tail` stored as is, then the end of
 * the stream. The head's bytes are not copied: the answer goes out as `prefix` and these.
 */
export function closingBytes(open: OpenStream, tail: Buffer): Buffer | undefined {
  const n = tail.byteLength;
  if (n > maxTailBytes) return undefined;
  if (open.encoding === "gzip") {
    const out = Buffer.allocUnsafe(5 + n + 8);
    // Stored block, final (BFINAL=1, BTYPE=00), then LEN and its one's complement, little-endian.
    out[0] = 0x01;
    out.writeUInt16LE(n, 1);
    out.writeUInt16LE(~n & 0xffff, 3);
    const at = 5 + tail.copy(out, 5);
    out.writeUInt32LE(crc32(tail, open.crc), at);
    out.writeUInt32LE((open.length + n) >>> 0, at + 4);
    return out;
  }
  // Nothing to add (a page, whose bytes are all stored): only the last, empty meta-block.
  if (n === 0) return Buffer.from([0x03]);
  const out = Buffer.allocUnsafe(3 + n + 1);
  // Meta-block header (RFC 7932 §9.2), bits from the lowest: ISLAST=0, MNIBBLES=0 (four nibbles),
  // MLEN-1 in 16 bits, ISUNCOMPRESSED=1, then zero padding to the byte boundary.
  const header = ((n - 1) << 3) | (1 << 19);
  out[0] = header & 0xff;
  out[1] = (header >>> 8) & 0xff;
  out[2] = (header >>> 16) & 0xff;
  const at = 3 + tail.copy(out, 3);
  // The last, empty meta-block: ISLAST=1, ISLASTEMPTY=1.
  out[at] = 0x03;
  return out;
}
