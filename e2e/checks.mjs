// The check harness the SDK scripts share. Each check prints one JSON line ({check, ok, ms and
// detail or error}); finish prints a summary line and exits 1 when any check failed. The Go tests
// (runNode in main_test.go) go by the exit status and show the lines.
import { ElevenLabsError } from '@elevenlabs/elevenlabs-js';

let failures = 0;

export const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

// CheckError is a failed assertion, as opposed to an error of the SDK or the server.
export class CheckError extends Error {}

export function assert(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

// check runs fn as the check called name and reports whether it passed; what fn returns is the
// line's detail.
export async function check(name, fn) {
  const start = Date.now();
  try {
    const detail = await fn();
    emit({ check: name, ok: true, ms: Date.now() - start, ...(detail === undefined ? {} : { detail }) });
    return true;
  } catch (err) {
    failures++;
    emit({ check: name, ok: false, ms: Date.now() - start, error: describeError(err) });
    return false;
  }
}

// describeError is what a failed check reports: the SDK's status and body, the paths of a
// schema validation failure, or the start of the stack of anything unexpected.
export function describeError(err) {
  if (err instanceof ElevenLabsError) {
    return { name: err.name, message: err.message, statusCode: err.statusCode, body: err.body };
  }
  const out = { name: err?.name, message: err?.message };
  if (Array.isArray(err?.errors)) out.errors = err.errors;
  if (!(err instanceof CheckError) && !out.errors && err?.stack) out.stack = err.stack.split('\n').slice(0, 4).join(' | ');
  return out;
}

// finish ends the script called name: a summary line, a line for people, and exit status 1 when
// any check failed.
export function finish(name) {
  emit({ summary: true, failures });
  console.log(`${name}: ${failures === 0 ? 'all checks passed' : `${failures} check(s) failed`}`);
  process.exit(failures ? 1 : 0);
}

// isMp3 says whether buf starts with an mp3 frame (after an ID3 tag, if any).
export function isMp3(buf) {
  let off = 0;
  if (buf.subarray(0, 3).toString('latin1') === 'ID3') off = 10 + (((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f));
  return buf.length > off + 2 && buf[off] === 0xff && (buf[off + 1] & 0xe0) === 0xe0;
}

// bytesOf reads a stream the SDK returns to its end.
export async function bytesOf(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}
