// SDK compatibility check: drives a running Timbre with the official ElevenLabs JS SDK.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/sdk.mjs
//
// Prints one JSON line per check ({"check","ok","ms",…}) and exits 1 when any check fails.
// Normally run by sdk_test.go, which starts the server and makes the key.
import { ElevenLabsClient, ElevenLabsError, AudioFormat, RealtimeEvents } from '@elevenlabs/elevenlabs-js';
import { createRequire } from 'node:module';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}

const require = createRequire(import.meta.url);
const sdkVersion = require('@elevenlabs/elevenlabs-js/package.json').version;

// maxRetries 0: a 5xx must show up as a failure here, not be hidden by the SDK's retries.
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 30 });

const VOICE_ID = '21m00Tcm4TlvDq8ikWAM'; // Rachel: the stock ElevenLabs voice id
const MODEL_ID = 'eleven_multilingual_v2';
const TEXT = 'Hello from the Timbre end-to-end test.';

let failures = 0;
const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

class CheckError extends Error {}
function assert(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

function describeError(err) {
  if (err instanceof ElevenLabsError) {
    return { name: err.name, message: err.message, statusCode: err.statusCode, body: err.body };
  }
  // Schema validation failures (serialization errors) carry the offending paths in `errors`.
  const out = { name: err?.name, message: err?.message };
  if (Array.isArray(err?.errors)) out.errors = err.errors;
  if (!(err instanceof CheckError) && !out.errors && err?.stack) out.stack = err.stack.split('\n').slice(0, 4).join(' | ');
  return out;
}

async function check(name, fn) {
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

async function collect(stream) {
  const chunks = [];
  let n = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    n++;
  }
  return { bytes: Buffer.concat(chunks.map((c) => Buffer.from(c))), chunks: n };
}

/** Whether buf starts like an MP3 file: an ID3v2 tag followed by a frame, or a frame sync. */
function looksLikeMp3(buf) {
  if (buf.length < 4) return false;
  let off = 0;
  if (buf.subarray(0, 3).toString('latin1') === 'ID3') {
    if (buf.length < 10) return false;
    const size = ((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f);
    off = 10 + size;
    if (off + 2 > buf.length) return false;
  }
  return buf[off] === 0xff && (buf[off + 1] & 0xe0) === 0xe0;
}

function assertMp3(bytes, what) {
  assert(bytes.length > 1000, `${what}: only ${bytes.length} bytes`);
  assert(looksLikeMp3(bytes), `${what}: not MP3 (first bytes ${bytes.subarray(0, 8).toString('hex')})`);
}

function assertAlignment(a, text, what) {
  assert(a, `${what}: alignment missing`);
  const { characters, characterStartTimesSeconds: s, characterEndTimesSeconds: e } = a;
  assert(Array.isArray(characters) && Array.isArray(s) && Array.isArray(e), `${what}: alignment arrays missing`);
  assert(
    characters.length === s.length && s.length === e.length,
    `${what}: lengths differ: characters ${characters.length}, starts ${s.length}, ends ${e.length}`,
  );
  if (text !== undefined) {
    assert(characters.length === [...text].length, `${what}: ${characters.length} characters aligned, input has ${[...text].length}`);
    assert(characters.join('') === text, `${what}: characters ${JSON.stringify(characters.join(''))} != input text`);
  }
  for (let i = 0; i < s.length; i++) {
    assert(s[i] <= e[i], `${what}: character ${i} ends (${e[i]}) before it starts (${s[i]})`);
    if (i > 0) assert(s[i] >= s[i - 1], `${what}: start times go backwards at ${i}`);
  }
}

emit({ info: 'sdk', package: '@elevenlabs/elevenlabs-js', version: sdkVersion, baseUrl, node: process.version });

let historyItemId;
let speechMp3;
const ttsRequest = { text: TEXT, modelId: MODEL_ID, outputFormat: 'mp3_44100_128' };

await check('textToSpeech.convert', async () => {
  const { data, rawResponse } = await client.textToSpeech.convert(VOICE_ID, ttsRequest).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'convert');
  speechMp3 = bytes;
  historyItemId = rawResponse.headers.get('history-item-id');
  const cost = rawResponse.headers.get('character-cost');
  assert(historyItemId, 'no history-item-id header');
  assert(cost !== null && Number(cost) === TEXT.length, `character-cost header ${cost}, want ${TEXT.length}`);
  assert(rawResponse.headers.get('request-id'), 'no request-id header');
  const type = rawResponse.headers.get('content-type');
  assert(type && type.startsWith('audio/mpeg'), `content-type ${type}`);
  return { bytes: bytes.length, historyItemId, characterCost: Number(cost) };
});

await check('forcedAlignment.create', async () => {
  assert(speechMp3, 'no speech from textToSpeech.convert to align');
  const r = await client.forcedAlignment.create({ file: new Blob([speechMp3], { type: 'audio/mpeg' }), text: TEXT });
  const words = TEXT.split(' ');
  assert(r.words.length === words.length, `${r.words.length} words, want ${words.length}`);
  r.words.forEach((w, i) => {
    assert(w.text === words[i], `word ${i} is ${w.text}, want ${words[i]}`);
    assert(typeof w.loss === 'number' && w.loss >= 0 && w.end >= w.start, `word ${w.text}: ${JSON.stringify(w)}`);
  });
  assert(r.characters.map((c) => c.text).join('') === TEXT, 'the characters do not spell the text');
  assert(typeof r.loss === 'number', `loss ${r.loss}`);
  return { words: r.words.length, loss: r.loss };
});

await check('textToSpeech.stream', async () => {
  const stream = await client.textToSpeech.stream(VOICE_ID, {
    text: 'Streaming speech, one chunk after another.',
    modelId: 'eleven_flash_v2_5',
    outputFormat: 'mp3_22050_32',
  });
  const { bytes, chunks } = await collect(stream);
  assertMp3(bytes, 'stream');
  return { bytes: bytes.length, chunks };
});

await check('textToSpeech.convertWithTimestamps', async () => {
  const text = 'Timestamps, please.';
  const r = await client.textToSpeech.convertWithTimestamps(VOICE_ID, { text, modelId: MODEL_ID });
  assert(typeof r.audioBase64 === 'string' && r.audioBase64.length > 0, 'no audio_base64');
  assertMp3(Buffer.from(r.audioBase64, 'base64'), 'with-timestamps audio');
  assertAlignment(r.alignment, text, 'alignment');
  if (r.normalizedAlignment) assertAlignment(r.normalizedAlignment, undefined, 'normalized_alignment');
  return { characters: r.alignment.characters.length, end: r.alignment.characterEndTimesSeconds.at(-1) };
});

await check('textToSpeech.streamWithTimestamps', async () => {
  const text = 'Streamed with timestamps.';
  const stream = await client.textToSpeech.streamWithTimestamps(VOICE_ID, { text, modelId: MODEL_ID });
  const audio = [];
  const chars = [];
  let n = 0;
  let last = -1;
  for await (const chunk of stream) {
    n++;
    if (chunk.audioBase64) audio.push(Buffer.from(chunk.audioBase64, 'base64'));
    if (chunk.alignment) {
      assertAlignment(chunk.alignment, undefined, `chunk ${n} alignment`);
      const starts = chunk.alignment.characterStartTimesSeconds;
      if (starts.length) {
        assert(starts[0] >= last, `chunk ${n} starts (${starts[0]}) before the previous chunk (${last})`);
        last = starts.at(-1);
      }
      chars.push(...chunk.alignment.characters);
    }
  }
  assert(n > 0, 'no chunks');
  assertMp3(Buffer.concat(audio), 'stream/with-timestamps audio');
  assert(chars.join('') === text, `streamed characters ${JSON.stringify(chars.join(''))} != input ${JSON.stringify(text)}`);
  return { chunks: n, characters: chars.length };
});

await check('voices.getAll', async () => {
  const r = await client.voices.getAll();
  assert(Array.isArray(r.voices) && r.voices.length > 0, 'no voices');
  const rachel = r.voices.find((v) => v.voiceId === VOICE_ID);
  assert(rachel, `${VOICE_ID} not in /v1/voices`);
  for (const v of r.voices) assert(v.voiceId && v.name, `voice without id or name: ${JSON.stringify(v)}`);
  return { voices: r.voices.length };
});

await check('voices.search', async () => {
  const r = await client.voices.search({ pageSize: 5 });
  assert(Array.isArray(r.voices) && r.voices.length > 0 && r.voices.length <= 5, `${r.voices?.length} voices for page_size 5`);
  assert(typeof r.hasMore === 'boolean', 'has_more missing');
  assert(typeof r.totalCount === 'number' && r.totalCount >= r.voices.length, `total_count ${r.totalCount}`);
  let pages = 1;
  if (r.hasMore) {
    assert(r.nextPageToken, 'has_more without next_page_token');
    const next = await client.voices.search({ pageSize: 5, nextPageToken: r.nextPageToken });
    assert(next.voices.length > 0, 'second page is empty');
    const ids = new Set(r.voices.map((v) => v.voiceId));
    assert(next.voices.every((v) => !ids.has(v.voiceId)), 'second page repeats voices of the first');
    pages++;
  }
  const found = await client.voices.search({ search: 'Rachel' });
  assert(found.voices.some((v) => v.voiceId === VOICE_ID), 'search "Rachel" did not find Rachel');
  return { first: r.voices.length, totalCount: r.totalCount, pages };
});

await check('voices.get', async () => {
  const v = await client.voices.get(VOICE_ID);
  assert(v.voiceId === VOICE_ID, `voice_id ${v.voiceId}`);
  assert(v.name, 'no name');
  return { name: v.name, category: v.category };
});

await check('voices.settings.getDefault', async () => {
  const s = await client.voices.settings.getDefault();
  for (const k of ['stability', 'similarityBoost']) assert(typeof s[k] === 'number', `${k} is ${s[k]}`);
  return s;
});

await check('voices.settings.get', async () => {
  const s = await client.voices.settings.get(VOICE_ID);
  for (const k of ['stability', 'similarityBoost']) assert(typeof s[k] === 'number', `${k} is ${s[k]}`);
  return s;
});

await check('models.list', async () => {
  const models = await client.models.list();
  assert(Array.isArray(models) && models.length > 0, 'no models');
  const m = models.find((x) => x.modelId === MODEL_ID);
  assert(m, `${MODEL_ID} missing`);
  assert(m.canDoTextToSpeech === true, `${MODEL_ID} can_do_text_to_speech ${m.canDoTextToSpeech}`);
  return { models: models.map((x) => x.modelId) };
});

await check('history.list', async () => {
  const r = await client.history.list({ pageSize: 10 });
  assert(Array.isArray(r.history), 'no history array');
  assert(typeof r.hasMore === 'boolean', 'has_more missing');
  assert(historyItemId, 'no history item from convert');
  const item = r.history.find((h) => h.historyItemId === historyItemId);
  assert(item, `history item ${historyItemId} (from convert) not listed`);
  assert(item.text === TEXT, `text ${JSON.stringify(item.text)}`);
  assert(item.voiceId === VOICE_ID, `voice_id ${item.voiceId}`);
  return { items: r.history.length, hasMore: r.hasMore };
});

await check('history.get', async () => {
  assert(historyItemId, 'no history item from convert');
  const h = await client.history.get(historyItemId);
  assert(h.historyItemId === historyItemId, `history_item_id ${h.historyItemId}`);
  assert(h.text === TEXT, `text ${JSON.stringify(h.text)}`);
  assert(h.modelId === MODEL_ID, `model_id ${h.modelId}`);
  assert(
    Math.abs(h.characterCountChangeTo - h.characterCountChangeFrom) === TEXT.length,
    `character count change ${h.characterCountChangeFrom} → ${h.characterCountChangeTo}`,
  );
  return { voiceName: h.voiceName, state: h.state, contentType: h.contentType };
});

await check('history.getAudio', async () => {
  assert(historyItemId, 'no history item from convert');
  const { bytes } = await collect(await client.history.getAudio(historyItemId));
  assertMp3(bytes, 'history audio');
  return { bytes: bytes.length };
});

await check('history.download', async () => {
  assert(historyItemId, 'no history item from convert');
  const { data, rawResponse } = await client.history.download({ historyItemIds: [historyItemId] }).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'history download');
  const disposition = rawResponse.headers.get('content-disposition');
  assert(disposition && /attachment/i.test(disposition) && /\.mp3/i.test(disposition), `content-disposition ${disposition}`);
  return { bytes: bytes.length, disposition };
});

await check('history.delete', async () => {
  assert(historyItemId, 'no history item from convert');
  const r = await client.history.delete(historyItemId);
  assert(r.status === 'ok', `status ${r.status}`);
  try {
    await client.history.get(historyItemId);
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, `get after delete: ${JSON.stringify(describeError(err))}`);
    return r;
  }
  throw new CheckError('history item still readable after delete');
});

await check('GET /v1/user raw JSON has workspace_id (the SDK requires it)', async () => {
  const res = await fetch(`${baseUrl}/v1/user`, { headers: { 'xi-api-key': apiKey } });
  assert(res.ok, `GET /v1/user → ${res.status}`);
  const u = await res.json();
  assert(typeof u.workspace_id === 'string' && u.workspace_id, `workspace_id ${JSON.stringify(u.workspace_id)}`);
  return { workspace_id: u.workspace_id };
});

await check('user.get', async () => {
  const u = await client.user.get();
  assert(u.userId, 'no user_id');
  assert(u.workspaceId, 'no workspace_id');
  assert(u.subscription && typeof u.subscription.characterLimit === 'number', 'no subscription.character_limit');
  return { userId: u.userId, workspaceId: u.workspaceId, tier: u.subscription.tier };
});

await check('user.subscription.get', async () => {
  const s = await client.user.subscription.get();
  assert(s.tier, 'no tier');
  assert(typeof s.characterCount === 'number' && typeof s.characterLimit === 'number', 'no character counts');
  assert(s.characterCount >= TEXT.length, `character_count ${s.characterCount} after generating ${TEXT.length} characters`);
  return { tier: s.tier, characterCount: s.characterCount, characterLimit: s.characterLimit };
});

await check('error: bad API key → 401', async () => {
  const bad = new ElevenLabsClient({ baseUrl, apiKey: 'sk_not_a_real_key', maxRetries: 0 });
  try {
    await bad.user.get();
  } catch (err) {
    assert(err instanceof ElevenLabsError, `not an ElevenLabsError: ${err}`);
    assert(err.statusCode === 401, `statusCode ${err.statusCode}`);
    assert(err.body?.detail?.status, `body ${JSON.stringify(err.body)}`);
    return { statusCode: err.statusCode, status: err.body.detail.status };
  }
  throw new CheckError('no error with a bad key');
});

await check('error: unknown voice → 404 voice_not_found', async () => {
  try {
    await client.textToSpeech.convert('no_such_voice_00000000', { text: 'Hi.', modelId: MODEL_ID });
  } catch (err) {
    assert(err instanceof ElevenLabsError, `not an ElevenLabsError: ${err}`);
    assert(err.statusCode === 404, `statusCode ${err.statusCode}, body ${JSON.stringify(err.body)}`);
    assert(err.body?.detail?.status === 'voice_not_found', `body ${JSON.stringify(err.body)}`);
    return { statusCode: err.statusCode, status: err.body.detail.status };
  }
  throw new CheckError('no error for an unknown voice');
});

await check('error: voices.get unknown → 404', async () => {
  try {
    await client.voices.get('no_such_voice_00000000');
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, JSON.stringify(describeError(err)));
    return { statusCode: err.statusCode, status: err.body?.detail?.status };
  }
  throw new CheckError('no error for an unknown voice');
});

await check('speechToText.realtime: stream PCM, partials and a committed transcript', async () => {
  const spoken = 'The birch canoe slid on the smooth planks.';
  const tts = await client.textToSpeech.convert(VOICE_ID, { text: spoken, modelId: MODEL_ID, outputFormat: 'pcm_16000' });
  const { bytes: pcm } = await collect(tts);
  const connection = await client.speechToText.realtime.connect({
    modelId: 'scribe_v2_realtime', audioFormat: AudioFormat.PCM_16000, sampleRate: 16000, includeTimestamps: true,
  });
  const seen = { partials: 0 };
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CheckError('no committed transcript within 30 s')), 30000);
    connection.on(RealtimeEvents.PARTIAL_TRANSCRIPT, () => { seen.partials++; });
    connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT_WITH_TIMESTAMPS, (m) => { clearTimeout(timer); resolve(m); });
    connection.on(RealtimeEvents.ERROR, (e) => { clearTimeout(timer); reject(new CheckError(`error: ${JSON.stringify(e.error ?? String(e))}`)); });
  });
  const started = new Promise((resolve) => connection.on(RealtimeEvents.SESSION_STARTED, resolve));
  const session = await started;
  assert(session.session_id && session.config?.sample_rate === 16000, `session_started ${JSON.stringify(session)}`);
  for (let at = 0; at < pcm.length; at += 6400) { // 200 ms chunks
    connection.send({ audioBase64: pcm.subarray(at, at + 6400).toString('base64') });
  }
  connection.commit();
  const committed = await done;
  connection.close();
  const words = committed.text.toLowerCase().match(/[a-z']+/g) ?? [];
  // Recognition quality is measured in the Go test; here the protocol: a transcript of the speech.
  const heard = ['the', 'birch', 'canoe', 'slid', 'on', 'smooth', 'planks'].filter((w) => words.includes(w)).length;
  assert(words.length >= 4 && heard >= 2, `committed ${JSON.stringify(committed.text)}`);
  assert(Array.isArray(committed.words) && committed.words.some((w) => w.type === 'word' && w.end > w.start), 'no timed words');
  return { text: committed.text, partials: seen.partials, words: committed.words.length };
});

emit({ summary: true, failures });
console.log(`sdk: ${failures === 0 ? 'all checks passed' : `${failures} check(s) failed`}`);
process.exit(failures === 0 ? 0 : 1);
